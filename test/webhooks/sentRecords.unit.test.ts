import { describe, expect, it } from 'vitest';
import type { PlannedDelivery } from '../../webhooks/webhookFanout.ts';
import { inRecords } from '../../webhooks/sendPlanned.ts';

const sent = (n: number, chars: number) => Array.from({ length: n }, (_, i) => ({ d: { id: `d${i}`, payload: 'x'.repeat(chars) } as PlannedDelivery }));
const sizes = (records: Array<Array<{ d: PlannedDelivery }>>) => records.map((r) => r.length);

describe("a batch's sent deliveries in records", () => {
  it('holds at most 250 deliveries and 512 KiB of bodies per record, in order, a larger body alone', () => {
    expect(sizes(inRecords(sent(600, 100)))).toEqual([250, 250, 100]);
    // 100 KiB bodies: five fit in 512 KiB.
    expect(sizes(inRecords(sent(12, 100 * 1024)))).toEqual([5, 5, 2]);
    expect(sizes(inRecords(sent(2, 600 * 1024)))).toEqual([1, 1]);
    expect(inRecords(sent(600, 100)).flat().map((s) => s.d.id)).toEqual(sent(600, 100).map((s) => s.d.id));
    expect(inRecords([])).toEqual([]);
  });
});
