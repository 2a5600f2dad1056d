import { loadConfig } from '../../platform/runtime/config.ts';
import type { CliCommand } from '../command.ts';
import { exitOnSignal } from '../exitOnSignal.ts';

export const serveCommand: CliCommand = {
  path: ['serve'],
  usage: 'serve',
  description: 'Run the HTTP API and its projections (what `npm start` runs).',
  longRunning: true,
  async run() {
    const config = loadConfig();
    // Loaded here: the HTTP layer is slow to load, and no other command needs it.
    const { startServer } = await import('../../app/server.ts');
    const server = await startServer(config).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 'EADDRINUSE') {
        throw new Error(`${config.HOST}:${config.PORT} is already in use (another \`commerce serve\`?); set PORT to a free port`, { cause: error });
      }
      throw error;
    });
    exitOnSignal((signal) => {
      console.log(`${signal}: finishing in-flight requests…`);
      return server.close();
    });
    // Announced only once the signal handlers are in: a supervisor may signal as soon as it reads this.
    console.log(`commerce service listening on ${server.url} (docs: ${server.url}/docs)`);
    await new Promise(() => undefined);
  },
  format: () => '',
};
