/**
 * The catch benchmark's yardstick: a bare fastify route that parses the JSON body and answers,
 * recording nothing. Run as its own process by bench/catch.ts.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.all('/hooks/catch/:sequence/:trigger', async (request) => {
  const body = request.body as Record<string, unknown>;
  return { success: true, message: 'Workflow started', workflow_id: typeof body.email === 'string' ? 1 : 0 };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0} `);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
