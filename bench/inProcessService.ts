import { buildApp } from '../api/app.ts';
import { startBackgroundJobs } from '../app/backgroundJobs.ts';
import { compose } from '../app/compose.ts';
import { loadConfig } from '../app/config.ts';
import type { Services } from '../app/services.ts';
import type { CommandContext } from '../commands/handleCommand.ts';

/**
 * The whole service in this process, as `serve` runs it (projections and background jobs
 * included), listening on loopback: what a benchmark loads. `env` sets its configuration.
 */
export async function startInProcessService(env: Record<string, string>): Promise<{
  url: string;
  services: Services;
  /** Event metadata for seeding data through the commands. */
  ctx: CommandContext;
  close(): Promise<void>;
}> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  const logger = { error: (o: object, m: string) => console.error(m, o), info: () => undefined };
  const services = await compose(config, { runProjections: true, logger });
  const app = await buildApp(services);
  const jobs = await startBackgroundJobs(services, logger);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    services,
    ctx: {
      store: services.store,
      metadata: { correlation_id: 'bench', actor: { type: 'cli' }, organization_id: null, occurred_at: Math.floor(Date.now() / 1000) },
    },
    async close() {
      await app.close();
      await jobs.stop();
      await services.close();
    },
  };
}
