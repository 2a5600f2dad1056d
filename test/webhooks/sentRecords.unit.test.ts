import { describe, expect, it } from 'vitest';
import type { PlannedDelivery } from '../../webhooks/webhookFanout.ts';
import { inRecords } from '../../webhooks/sendPlanned.ts';

const sent = (n: number, chars: number) => Array.from({ length: n }, (_, i) => ({ d: { id: `d${i}`, payload: 'x'.repeat(chars) } as PlannedDelivery }));
const sizes = (records: Array<Array<{ d: PlannedDelivery }>>) => records.map((r) => r.length);

describe("a batch's sent deliveries in records", () => {
  it('holds at most 64 deliveries and 96 KiB of bodies per record, in order, a larger body alone', () => {
    expect(sizes(inRecords(sent(150, 100)))).toEqual([64, 64, 22]);
    // 20 KiB bodies: four fit in 96 KiB.
    expect(sizes(inRecords(sent(10, 20 * 1024)))).toEqual([4, 4, 2]);
    expect(sizes(inRecords(sent(2, 200 * 1024)))).toEqual([1, 1]);
    expect(inRecords(sent(600, 100)).flat().map((s) => s.d.id)).toEqual(sent(600, 100).map((s) => s.d.id));
    expect(inRecords([])).toEqual([]);
  });
});
