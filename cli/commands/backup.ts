import type { BackupResult } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { CliUsageError, requireArg, type CliCommand } from '../command.ts';

type Result = BackupResult & { files: number; file_bytes: number };

export const backupCommand: CliCommand = {
  path: ['backup'],
  usage: 'backup DIR',
  maxArgs: 1,
  description:
    'Copy DATA_DIR (events, read models, uploaded files) into the new directory DIR as one consistent snapshot, while the server runs; to restore, serve with DATA_DIR=DIR.',
  standalone: true,
  async run({ args }) {
    const to = requireArg(args, 'give the directory to write the backup to: commerce backup DIR');
    // The service's stores, loaded only for a backup that runs (not for its --help).
    const { backupEmbeddedData, BackupRefused } = await import('../../app/compose.ts');
    try {
      return await backupEmbeddedData(loadConfig(), to);
    } catch (error) {
      if (error instanceof BackupRefused) throw new CliUsageError(error.message);
      throw error;
    }
  },
  format: (r: Result) =>
    `backed up ${r.events} events (up to position ${r.head_position}) and the read models into ${r.to} (${r.bytes} bytes)` +
    `${r.files > 0 ? `, and ${r.files} uploaded files (${r.file_bytes} bytes)` : ''} in ${r.seconds}s.\n` +
    `To restore: stop the server, then start it with DATA_DIR=${r.to} (or move that directory to where DATA_DIR points).`,
};
