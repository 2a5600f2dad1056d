import { describe, expect, it } from 'vitest';
import { dateIn, lastDays, startOfDate } from '../../modules/reporting/zonedDays.ts';

const unix = (iso: string) => Date.parse(iso) / 1000;

describe('days in a time zone', () => {
  it('starts a day at local midnight, across daylight saving and in odd offsets', () => {
    expect(startOfDate('2026-11-24', 'UTC')).toBe(unix('2026-11-24T00:00:00Z'));
    expect(startOfDate('2026-11-24', 'Europe/Berlin')).toBe(unix('2026-11-23T23:00:00Z'));
    expect(startOfDate('2026-07-01', 'Europe/Berlin')).toBe(unix('2026-06-30T22:00:00Z'));
    expect(startOfDate('2026-11-24', 'Asia/Kolkata')).toBe(unix('2026-11-23T18:30:00Z'));
    expect(startOfDate('2026-11-24', 'Asia/Kathmandu')).toBe(unix('2026-11-23T18:15:00Z'));
    expect(startOfDate('2026-11-24', 'America/Los_Angeles')).toBe(unix('2026-11-24T08:00:00Z'));
    // The spring-forward day in Berlin is 23 hours long, the autumn one 25.
    const spring = lastDays(unix('2026-03-29T12:00:00Z'), 2, 'Europe/Berlin');
    expect(spring.map((d) => d.date)).toEqual(['2026-03-28', '2026-03-29']);
    expect(spring[1]!.to - spring[1]!.from).toBe(23 * 3600);
    const autumn = lastDays(unix('2026-10-25T12:00:00Z'), 1, 'Europe/Berlin');
    expect(autumn[0]!.to - autumn[0]!.from).toBe(25 * 3600);
  });

  it('names the date a moment falls on there, and chains days without gaps', () => {
    expect(dateIn(unix('2026-11-23T23:30:00Z'), 'Europe/Berlin')).toBe('2026-11-24');
    expect(dateIn(unix('2026-11-23T23:30:00Z'), 'UTC')).toBe('2026-11-23');
    const days = lastDays(unix('2026-11-24T10:00:00Z'), 30, 'Asia/Tokyo');
    expect(days).toHaveLength(30);
    expect(days.at(-1)!.date).toBe('2026-11-24');
    for (let i = 1; i < days.length; i++) expect(days[i]!.from).toBe(days[i - 1]!.to);
    // Every day starts on a quarter hour, so the read model's buckets never straddle two days.
    for (const zone of ['Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/St_Johns']) for (const d of lastDays(unix('2026-11-24T10:00:00Z'), 3, zone)) expect(d.from % 900).toBe(0);
  });
});
