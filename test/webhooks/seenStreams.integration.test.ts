import { afterEach, describe, expect, it } from 'vitest';
import type { EventStore, NewEvent } from '../../platform/eventStore/eventStore.ts';
import { SeenStreams } from '../../webhooks/seenStreams.ts';
import { openTempStores } from '../helpers/sqliteStores.ts';

const event = (type: string, n: number): NewEvent => ({
  id: crypto.randomUUID(),
  type,
  data: { n },
  metadata: { correlation_id: 't', actor: { type: 'cli' }, organization_id: 'org_1', occurred_at: n },
});

const types = (events: Array<{ type: string }>) => events.map((e) => e.type);

/** The fan-out's copy of the sale streams it has delivered: whole from revision 0, or the log is read. */
describe('SeenStreams', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup.length = 0;
  });

  const all = (store: EventStore) => store.readAll({ after: null, limit: 1000 });

  it('answers a stream seen from its first event with what was delivered, and reads the others from the log', async () => {
    const { store } = openTempStores(cleanup, 'seen-');
    await store.append('checkout_session-a', [event('Created', 1), event('Started', 2)], 'no_stream');
    await store.append('checkout_session-b', [event('Created', 1)], 'no_stream');
    const seen = new SeenStreams();
    const [a0, a1, b0] = await all(store);
    // The subscription delivered a whole, and b from its second event on (begun before it started).
    seen.see([a0!, a1!]);
    await store.append('checkout_session-b', [event('Completed', 2)], 0);
    const [, , , b1] = await all(store);
    seen.see([b1!]);
    // Appended since, not delivered yet: no webhook of the batch in hand may fold it anyway.
    await store.append('checkout_session-a', [event('Completed', 3)], 1);
    const reader = seen.over(store);
    expect(types(await reader.readStream('checkout_session-a'))).toEqual(['Created', 'Started']);
    expect(types(await reader.readStream('checkout_session-b'))).toEqual(['Created', 'Completed']);
    expect(b0!.revision).toBe(0);
  });

  it('keeps no duplicate of a batch delivered again, and gives up a stream with a gap for the log', async () => {
    const { store } = openTempStores(cleanup, 'seen-');
    await store.append('invoice-x', [event('InvoiceCreated', 1), event('InvoicePaid', 2), event('InvoiceRefunded', 3)], 'no_stream');
    const [x0, x1, x2] = await all(store);
    const seen = new SeenStreams();
    seen.see([x0!, x1!]);
    seen.see([x0!, x1!]);
    expect(types(await seen.over(store).readStream('invoice-x'))).toEqual(['InvoiceCreated', 'InvoicePaid']);

    const gap = new SeenStreams();
    gap.see([x0!]);
    gap.see([x2!]);
    expect(types(await gap.over(store).readStream('invoice-x'))).toEqual(['InvoiceCreated', 'InvoicePaid', 'InvoiceRefunded']);
  });

  it('holds only the sale streams: others are read from the log', async () => {
    const { store } = openTempStores(cleanup, 'seen-');
    await store.append('promo-p', [event('PromoCreated', 1)], 'no_stream');
    const [p0] = await all(store);
    const seen = new SeenStreams();
    seen.see([p0!]);
    await store.append('promo-p', [event('PromoParticipantEnrolled', 2)], 0);
    expect(types(await seen.over(store).readStream('promo-p'))).toEqual(['PromoCreated', 'PromoParticipantEnrolled']);
  });
});
