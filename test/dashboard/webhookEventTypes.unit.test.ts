import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../modules/webhooks/domain/eventTypes.ts';
import { WEBHOOK_EVENTS } from '../../dashboard/src/webhookEventTypes.ts';

describe("the dashboard's webhook event types", () => {
  it('are the service’s, in its order (the dashboard may not import server code, so it repeats them)', () => {
    expect(WEBHOOK_EVENTS.map((e) => e.type)).toEqual([...WEBHOOK_EVENT_TYPES]);
  });
});
