import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openSealedEventStoreAt } from '../../app/compose.ts';
import { isEventStoreUrl } from '../../platform/runtime/eventStoreUrl.ts';
import { copyEvents, type CopyResult } from '../../platform/eventStore/copyEvents.ts';
import { CliUsageError, requireOption, type CliCommand } from '../command.ts';
import { progressBar } from '../progressBar.ts';

export const eventsCopyCommand: CliCommand = {
  path: ['events', 'copy'],
  usage: 'events copy --from DIR --to URL|DIR',
  description:
    'Copy an embedded deployment\'s whole event log (DIR holds commerce.db) to EventStoreDB / KurrentDB (esdb://… or kurrentdb://…) or another data directory, in order and idempotently; then run `projections rebuild` where it landed.',
  options: { from: 'string', to: 'string' },
  standalone: true,
  async run({ options, interactive }) {
    const from = requireOption(options, 'from');
    const to = requireOption(options, 'to');
    if (isEventStoreUrl(from)) throw new CliUsageError('--from is an embedded data directory (copying out of EventStoreDB is not supported)');
    if (!existsSync(join(resolve(from), 'commerce.db'))) throw new CliUsageError(`--from: no commerce.db in ${resolve(from)}`);
    if (resolve(from) === resolve(to)) throw new CliUsageError('--from and --to are the same store');
    // Through both vaults: a copy of the sealed bytes would name keys the target does not hold.
    const mongo = { url: process.env.MONGODB_URL || undefined, db: process.env.MONGODB_DB || 'commerce' };
    const source = await openSealedEventStoreAt(from, mongo);
    const target = await openSealedEventStoreAt(to, mongo).catch(async (error: unknown) => {
      await source.close();
      throw error;
    });
    const bar = progressBar('copying events'.padEnd(16), interactive);
    const started = performance.now();
    try {
      const result = await copyEvents(source, target, { onProgress: bar.update });
      bar.end();
      return { ...result, to, seconds: Number(((performance.now() - started) / 1000).toFixed(3)) };
    } finally {
      await source.close();
      await target.close();
    }
  },
  format: (r: CopyResult & { seconds: number; to: string }) =>
    `read ${r.events} events in ${r.seconds}s: ${r.copied} copied, ${r.alreadyThere} already there.\n` +
    (isEventStoreUrl(r.to)
      ? 'Next: point EVENTSTORE_URL and MONGODB_URL at the new servers and run `commerce projections rebuild`.'
      : `Next: run \`commerce projections rebuild\` with DATA_DIR=${r.to}.`),
};
