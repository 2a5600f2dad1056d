/**
 * Which connection strings the EventStoreDB adapter takes. The client it uses
 * (`@eventstore/db-client` 6.2.1, parseConnectionString.js) reads `esdb://` and
 * `esdb+discover://` only; KurrentDB's documentation writes `kurrentdb://` (and `kdb://`), which
 * that parser refuses, though the rest of the string means the same. Such a string is refused
 * here with the fix spelled out, rather than mistaken for something else (a directory name, for
 * `events copy --to`).
 */
const ESDB = /^esdb(\+discover)?:\/\//i;
const KURRENTDB = /^(kurrentdb|kdb)(\+discover)?:\/\//i;

/** Whether `location` names an event store server (in any scheme we recognise) rather than a directory. */
export function isEventStoreUrl(location: string): boolean {
  return ESDB.test(location) || KURRENTDB.test(location);
}

/** Why the adapter cannot take `url`, or null when it can. */
export function esdbConnectionStringProblem(url: string): string | null {
  const kurrent = KURRENTDB.exec(url);
  if (kurrent) {
    const scheme = `esdb${kurrent[2] ?? ''}://`;
    return `the EventStoreDB client in use (@eventstore/db-client 6.2.1) reads esdb:// and esdb+discover:// only: write ${scheme} in place of ${kurrent[0]} (the rest of the string means the same)`;
  }
  return ESDB.test(url) ? null : 'expected an esdb:// or esdb+discover:// connection string';
}
