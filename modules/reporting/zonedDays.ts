/** Calendar days in a timezone as Unix-second ranges, from Intl (daylight saving included). */

const partsFormat = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormat.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    partsFormat.set(timeZone, f);
  }
  return f;
}

/** The wall clock in `timeZone` at `ms`, read as if it were UTC: minus `ms`, the zone's offset then. */
function wallClockAsUtc(ms: number, timeZone: string): number {
  const parts = formatIn(timeZone).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
}

/** The date (YYYY-MM-DD) at Unix second `t` in `timeZone`. */
export function dateIn(t: number, timeZone: string): string {
  return new Date(wallClockAsUtc(t * 1000, timeZone)).toISOString().slice(0, 10);
}

/** The Unix second at which `date` (YYYY-MM-DD) begins in `timeZone`. */
export function startOfDate(date: string, timeZone: string): number {
  const guess = Date.parse(`${date}T00:00:00Z`);
  const first = guess - (wallClockAsUtc(guess, timeZone) - guess);
  // Once more with the offset at the first estimate: right across a daylight-saving change.
  return Math.floor((guess - (wallClockAsUtc(first, timeZone) - first)) / 1000);
}

/** The last `count` days up to and including the one `now` falls on, oldest first. */
export function lastDays(now: number, count: number, timeZone: string): { date: string; from: number; to: number }[] {
  const today = Date.parse(`${dateIn(now, timeZone)}T00:00:00Z`);
  const dates = Array.from({ length: count + 1 }, (_, i) => new Date(today - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  const starts = dates.map((d) => startOfDate(d, timeZone));
  return dates.slice(0, count).map((date, i) => ({ date, from: starts[i]!, to: starts[i + 1]! }));
}
