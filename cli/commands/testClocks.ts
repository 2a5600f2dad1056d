import { endClockSubscriptions } from '../../modules/subscriptions/billing.ts';
import { MAX_FROZEN_TIME } from '../../modules/subscriptions/domain/testClock.ts';
import { advanceTestClock, createTestClock, deleteTestClock, loadTestClock, type KnownTestClock } from '../../modules/subscriptions/testClockCommands.ts';
import { notFound } from '../../platform/domain/domainError.ts';
import { CliUsageError, isoSeconds as iso, requireArg, requireOption, unixOrIsoSeconds, type CliCommand, type CliOptions } from '../command.ts';

/** `--frozen-time`: Unix seconds, or an ISO 8601 date or date and time with its zone. */
function frozenTimeOption(options: CliOptions): number {
  const seconds = unixOrIsoSeconds(requireOption(options, 'frozen-time').trim());
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > MAX_FROZEN_TIME) {
    throw new CliUsageError('--frozen-time takes Unix seconds (1767225600), a date (2026-01-01) or a time with its zone (2026-01-01T09:30:00Z)');
  }
  return seconds;
}

const idArg = (args: string[], what: string) => requireArg(args, `${what} needs a clock id (clock_…)`);

const row = (c: KnownTestClock) => ({ id: c.id, name: c.name, frozen_time: c.frozen_time, status: c.status, created_at: c.created_at });
type ClockRow = ReturnType<typeof row>;
const describe = (c: ClockRow) => `${c.id}${c.name ? ` (${c.name})` : ''}  ${c.status}  frozen at ${iso(c.frozen_time)} (${c.frozen_time})`;

export const testClockCreateCommand: CliCommand = {
  path: ['test-clocks', 'create'],
  usage: 'test-clocks create --org ORG --frozen-time UNIX|ISO [--name NAME]',
  description: 'Create a test clock; attach it to a test-mode checkout session (test_clock) to bill its subscription in the clock’s time.',
  options: { org: 'string', 'frozen-time': 'string', name: 'string' },
  async run({ options, commandContext }) {
    const org = requireOption(options, 'org');
    const name = typeof options.name === 'string' && options.name.trim() !== '' ? options.name.trim() : null;
    return row(await createTestClock(commandContext(org), { organizationId: org, name, frozenTime: frozenTimeOption(options) }));
  },
  format: (c: ClockRow) => `test clock created: ${describe(c)}`,
};

export const testClockAdvanceCommand: CliCommand = {
  path: ['test-clocks', 'advance'],
  usage: 'test-clocks advance CLOCK --org ORG --frozen-time UNIX|ISO',
  description: 'Move a test clock forward; the running service (commerce serve) makes what falls due happen, then the clock is ready again.',
  options: { org: 'string', 'frozen-time': 'string' },
  maxArgs: 1,
  async run({ options, args, commandContext }) {
    const org = requireOption(options, 'org');
    return row(await advanceTestClock(commandContext(org), org, idArg(args, 'test-clocks advance'), frozenTimeOption(options)));
  },
  format: (c: ClockRow) => `test clock advancing: ${describe(c)}\n  \`commerce test-clocks show ${c.id} --org …\` says ready once the service has run what fell due`,
};

export const testClockShowCommand: CliCommand = {
  path: ['test-clocks', 'show'],
  usage: 'test-clocks show CLOCK --org ORG',
  description: 'A test clock: its time, and whether it is still advancing.',
  options: { org: 'string' },
  maxArgs: 1,
  async run({ services, options, args }) {
    const org = requireOption(options, 'org');
    // From its stream: the clock as it is, whether or not a projection has caught up.
    const clock = await loadTestClock(services, idArg(args, 'test-clocks show'));
    if (!clock || clock.status === 'deleted' || clock.organization_id !== org) throw notFound('Test clock');
    return row(clock);
  },
  format: (c: ClockRow) => describe(c),
};

export const testClockDeleteCommand: CliCommand = {
  path: ['test-clocks', 'delete'],
  usage: 'test-clocks delete CLOCK --org ORG',
  description: 'Delete a test clock; the subscriptions on it end.',
  options: { org: 'string' },
  maxArgs: 1,
  async run({ services, options, args, commandContext }) {
    const org = requireOption(options, 'org');
    const clock = await deleteTestClock(commandContext(org), org, idArg(args, 'test-clocks delete'));
    await endClockSubscriptions(services, clock.id, clock.frozen_time);
    return { id: clock.id, deleted: true };
  },
  format: (r: { id: string }) => `test clock ${r.id} deleted; its subscriptions ended`,
};

export const testClockCommands: CliCommand[] = [testClockCreateCommand, testClockAdvanceCommand, testClockShowCommand, testClockDeleteCommand];
