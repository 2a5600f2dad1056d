import { allProjections } from '../../app/allProjections.ts';
import { rebuildProjection } from '../../platform/es/projectionRunner.ts';
import { CliUsageError, type CliCommand } from '../command.ts';
import { progressBar } from '../progressBar.ts';

export const projectionsRebuildCommand: CliCommand = {
  path: ['projections', 'rebuild'],
  usage: 'projections rebuild [NAME]',
  maxArgs: 1,
  description: `Drop read models and rebuild them from the event log (${allProjections.map((p) => p.name).join(', ')}).`,
  async run({ args, services, interactive }) {
    const name = args[0];
    const chosen = name ? allProjections.filter((p) => p.name === name) : allProjections;
    if (chosen.length === 0) {
      throw new CliUsageError(`unknown projection '${name}'; known: ${allProjections.map((p) => p.name).join(', ')}`);
    }
    const rebuilt: Array<{ name: string; events: number; seconds: number }> = [];
    for (const projection of chosen) {
      const bar = progressBar(projection.name.padEnd(16), interactive);
      const started = performance.now();
      const { events } = await rebuildProjection(services.store, services.readStore, projection, bar.update);
      bar.end();
      rebuilt.push({ name: projection.name, events, seconds: Number(((performance.now() - started) / 1000).toFixed(3)) });
    }
    return { rebuilt };
  },
  format: (r: { rebuilt: Array<{ name: string; events: number; seconds: number }> }) =>
    r.rebuilt.map((p) => `rebuilt ${p.name}: ${p.events} events in ${p.seconds}s`).join('\n'),
};
