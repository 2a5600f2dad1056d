/**
 * Which connection strings the EventStoreDB adapter takes: `esdb://` and `esdb+discover://`, and
 * KurrentDB's spelling of the same, `kurrentdb://` and `kdb://` (each with `+discover`). The
 * client in use (`@eventstore/db-client` 6.2.1, parseConnectionString.js) reads the `esdb`
 * schemes only and speaks the same gRPC protocol to KurrentDB servers, so a KurrentDB string is
 * handed to it with its scheme rewritten; the rest of the string means the same to both.
 */
const ESDB = /^esdb(\+discover)?:\/\//i;
const KURRENTDB = /^(kurrentdb|kdb)(\+discover)?:\/\//i;

/** Whether `location` names an event store server (in any scheme we recognise) rather than a directory. */
export function isEventStoreUrl(location: string): boolean {
  return ESDB.test(location) || KURRENTDB.test(location);
}

/** Why the adapter cannot take `url`, or null when it can. */
export function esdbConnectionStringProblem(url: string): string | null {
  return isEventStoreUrl(url)
    ? null
    : 'expected an esdb://, esdb+discover://, kurrentdb://, kurrentdb+discover://, kdb:// or kdb+discover:// connection string';
}

/** The string as the client reads it: a KurrentDB scheme becomes its `esdb` equivalent. */
export function toEsdbConnectionString(url: string): string {
  return url.replace(KURRENTDB, (_scheme, _name: string, discover: string | undefined) => `esdb${discover ?? ''}://`);
}
