import { describe, expect, it } from 'vitest';
import { currencyDigits, pageOfList, sampleFields, toMajor, toMinor } from '../../dashboard/src/pages/pageKit.tsx';

describe("the dashboard pages' helpers", () => {
  it('pages a list the service answers whole, with the meta of a Laravel paginator', () => {
    const items = Array.from({ length: 60 }, (_, i) => i);
    expect(pageOfList(items, 1)).toEqual({ data: items.slice(0, 25), meta: { current_page: 1, last_page: 3, per_page: 25, total: 60, from: 1, to: 25 } });
    expect(pageOfList(items, 3).data).toEqual(items.slice(50));
    expect(pageOfList(items, 3).meta).toMatchObject({ from: 51, to: 60 });
    expect(pageOfList(items, 9).meta.current_page).toBe(3); // past the end: the last page
    expect(pageOfList([], 1).meta).toEqual({ current_page: 1, last_page: 1, per_page: 25, total: 0, from: null, to: null });
  });

  it("turns a typed price into the currency's minor units and back", () => {
    expect(currencyDigits('EUR')).toBe(2);
    expect(currencyDigits('JPY')).toBe(0);
    expect(toMinor('29.00', 'EUR')).toBe(2900);
    expect(toMinor('29,99', 'EUR')).toBe(2999);
    expect(toMinor('0.1', 'EUR')).toBe(10);
    expect(toMinor('1500', 'JPY')).toBe(1500);
    expect(toMinor('twelve', 'EUR')).toBeNaN();
    expect(toMinor(' ', 'EUR')).toBeNaN();
    expect(toMajor(2900, 'EUR')).toBe('29.00');
    expect(toMajor(1500, 'JPY')).toBe('1500');
  });

  it("offers every value of a sample's payload as a {{webhook_payload.…}} insertion", () => {
    expect(sampleFields({ email: 'a@b.co', plan: { tier: 'gold', seats: 3 }, tags: ['x'] })).toEqual([
      '{{webhook_payload.email}}',
      '{{webhook_payload.plan.tier}}',
      '{{webhook_payload.plan.seats}}',
      '{{webhook_payload.tags}}',
    ]);
    expect(sampleFields({ 'first name': 'Ada', 'a.b': 1, ok_key: 2 })).toEqual(['{{webhook_payload.ok_key}}']);
    expect(sampleFields(undefined)).toEqual([]);
    expect(sampleFields({})).toEqual([]);
    expect(sampleFields(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i])))).toHaveLength(200);
  });
});
