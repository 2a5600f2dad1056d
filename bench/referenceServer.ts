/**
 * The benchmark's yardstick: a bare fastify route that answers the product list from memory, with
 * no auth, no validation and no read store. Run as its own process by bench/catalog.ts.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.env.REFERENCE_BODY_FILE!);
const app = Fastify({ logger: false });
app.get('/api/catalog/products', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0} `);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
