/**
 * The file download benchmark's yardstick: @fastify/static serving files from a directory (the
 * data directory's files/), with its own ETag, Range and Content-Disposition handling, no
 * signature, grant or record. Run as its own process by bench/fileDownload.ts.
 */
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
await app.register(fastifyStatic, { root: process.env.REFERENCE_ROOT!, prefix: '/static/' });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0} `);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
