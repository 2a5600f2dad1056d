import { describe, expect, it } from 'vitest';
import { timeOrderedUuid } from '../../platform/es/timeOrderedUuid.ts';

describe('timeOrderedUuid', () => {
  it('makes RFC 9562 version 7 UUIDs carrying the time in their first 48 bits', () => {
    const id = timeOrderedUuid(1_767_225_600_123);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(1_767_225_600_123);
  });

  it('sorts ids of later milliseconds after earlier ones, and never repeats', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => timeOrderedUuid(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 10; i < ids.length; i += 10) expect(ids[i - 1]! < ids[i]!).toBe(true);
  });
});
