import { describe, expect, it } from 'vitest';
import { intervalWords } from '../../modules/catalog/domain/intervalWords.ts';

describe('intervalWords', () => {
  it('says how often a plan renews as a buyer reads it', () => {
    expect(intervalWords('P1M')).toBe('per month');
    expect(intervalWords('P1Y')).toBe('per year');
    expect(intervalWords('P1W')).toBe('per week');
    expect(intervalWords('P3M')).toBe('every 3 months');
    expect(intervalWords('P14D')).toBe('every 14 days');
    expect(intervalWords('P1Y6M')).toBe('every 1 year and 6 months');
  });

  it('is null for a plan that does not renew or a duration no buyer reads as a billing period', () => {
    expect(intervalWords(null)).toBeNull();
    expect(intervalWords('P0D')).toBeNull();
    expect(intervalWords('PT12H')).toBeNull();
    expect(intervalWords('monthly')).toBeNull();
  });
});
