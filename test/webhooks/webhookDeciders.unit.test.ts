import { describe, expect, it } from 'vitest';
import { secretBox } from '../../platform/lib/secretBox.ts';
import { asArray, fold } from '../../platform/domain/decider.ts';
import {
  MAX_ATTEMPTS,
  webhookDeliveryDecider,
  type AttemptOutcome,
  type SentDelivery,
  type WebhookDeliveryEvent,
  type WebhookDeliveryState,
} from '../../modules/webhooks/domain/webhookDelivery.ts';
import { signingSecrets, webhookEndpointDecider, type WebhookEndpointEvent } from '../../modules/webhooks/domain/webhookEndpoint.ts';

const failure: AttemptOutcome = { success: false, status_code: 503, error: null, retryable: true, duration_ms: 12, response_excerpt: '' };
const created: WebhookDeliveryEvent = {
  type: 'WebhookDeliveryCreated',
  data: { id: 'd1', endpoint_id: 'we_1', organization_id: 'org_1', event_id: 'e1', event_type: 'invoice.paid', resource: 'invoice-1', payload: '{}', created_at: 1000 },
};

function run(events: WebhookDeliveryEvent[], command: Parameters<typeof webhookDeliveryDecider.decide>[0]) {
  const state = fold(webhookDeliveryDecider, events);
  const decided = asArray(webhookDeliveryDecider.decide(command, state));
  return { decided, state: decided.reduce(webhookDeliveryDecider.evolve, state) as WebhookDeliveryState, events: [...events, ...decided] };
}

describe('webhook delivery decider', () => {
  it("follows Svix's schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then fails", () => {
    let events: WebhookDeliveryEvent[] = [created];
    let now = 1000;
    const waits: number[] = [];
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const r = run(events, { type: 'RecordAttempt', outcome: failure, now });
      events = r.events;
      if (r.state.next_attempt_at !== null) {
        waits.push(r.state.next_attempt_at - now);
        now = r.state.next_attempt_at;
      }
    }
    expect(waits).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    const last = fold(webhookDeliveryDecider, events);
    expect(last).toMatchObject({ status: 'failed', attempts: 8, next_attempt_at: null });
    // Nothing more is recorded once it has failed.
    expect(run(events, { type: 'RecordAttempt', outcome: failure, now }).decided).toEqual([]);
  });

  it('does not retry what cannot succeed, stops on success, and creates once', () => {
    expect(run([created], { type: 'RecordAttempt', outcome: { ...failure, retryable: false, error: 'blocked_address' }, now: 1000 }).state.status).toBe('failed');
    expect(run([created], { type: 'RecordAttempt', outcome: { ...failure, success: true, status_code: 200 }, now: 1000 }).state).toMatchObject({ status: 'succeeded', next_attempt_at: null });
    const { id, endpoint_id: endpointId, organization_id: organizationId, event_id: eventId, event_type: eventType, resource, payload } = created.data;
    expect(run([created], { type: 'Create', id, endpointId, organizationId, eventId, eventType, resource, payload, now: 2000 }).decided).toEqual([]);
  });

  it('a resend is one attempt, for its own organization only, and not while one is pending', () => {
    const succeeded = run([created], { type: 'RecordAttempt', outcome: { ...failure, success: true, status_code: 200 }, now: 1000 }).events;
    expect(() => run(succeeded, { type: 'Resend', organizationId: 'org_2', now: 1100 })).toThrow('not found');
    expect(() => run([created], { type: 'Resend', organizationId: 'org_1', now: 1100 })).toThrow('still being attempted');
    const resent = run(succeeded, { type: 'Resend', organizationId: 'org_1', now: 1100 });
    expect(resent.state).toMatchObject({ status: 'pending', next_attempt_at: 1100, manual: true });
    const after = run(resent.events, { type: 'RecordAttempt', outcome: failure, now: 1101 });
    expect(after.decided[0]).toMatchObject({ data: { attempt: 2, manual: true, next_attempt_at: null } });
    expect(after.state.status).toBe('failed');
  });

  it('reopens a delivery recorded with its batch when it is resent: its creation as recorded, one prior attempt, then the request', () => {
    const delivery: SentDelivery = {
      id: 'd1',
      event_id: 'e1',
      event_type: 'invoice.paid',
      resource: 'invoice-1',
      payload: '{"a":1}',
      created_at: 1000,
      status_code: 200,
      duration_ms: 3,
      response_excerpt: 'ok',
      attempted_at: 1001,
    };
    const sent = { endpointId: 'we_1', organizationId: 'org_1', delivery };
    // Without the batch's record, or for another organization, there is nothing to resend.
    expect(() => run([], { type: 'Resend', organizationId: 'org_1', now: 1100 })).toThrow('not found');
    expect(() => run([], { type: 'Resend', organizationId: 'org_2', now: 1100, sent })).toThrow('not found');
    const reopened = run([], { type: 'Resend', organizationId: 'org_1', now: 1100, sent });
    expect(reopened.decided.map((e) => e.type)).toEqual(['WebhookDeliveryCreated', 'WebhookDeliveryResendRequested']);
    expect(reopened.state).toMatchObject({ id: 'd1', payload: '{"a":1}', event_id: 'e1', status: 'pending', attempts: 1, next_attempt_at: 1100, manual: true });
    const after = run(reopened.events, { type: 'RecordAttempt', outcome: { ...failure, success: true, status_code: 200 }, now: 1101 });
    expect(after.decided[0]).toMatchObject({ data: { attempt: 2, manual: true } });
  });
});

describe('webhook endpoint decider', () => {
  const createdEndpoint: WebhookEndpointEvent = {
    type: 'WebhookEndpointCreated',
    data: { id: 'we_1', organization_id: 'org_1', url: 'https://example.com', event_types: ['invoice.paid'], enabled: true, secret: 'sealed-1', created_at: 1000 },
  };

  it('keeps the previous secret signing during the overlap only', () => {
    const state = fold(webhookEndpointDecider, [createdEndpoint]);
    const rotated = asArray(webhookEndpointDecider.decide({ type: 'RotateSecret', organizationId: 'org_1', sealedSecret: 'sealed-2', overlapSeconds: 60, now: 2000 }, state));
    const after = rotated.reduce(webhookEndpointDecider.evolve, state);
    expect(signingSecrets(after, 2000)).toEqual(['sealed-2', 'sealed-1']);
    expect(signingSecrets(after, 2060)).toEqual(['sealed-2']);
  });

  it("answers another organization's commands as not found", () => {
    const state = fold(webhookEndpointDecider, [createdEndpoint]);
    expect(() => webhookEndpointDecider.decide({ type: 'Update', organizationId: 'org_2', enabled: false, now: 2000 }, state)).toThrow('not found');
    expect(() => webhookEndpointDecider.decide({ type: 'Delete', organizationId: 'org_2', now: 2000 }, state)).toThrow('not found');
  });

  it('is disabled for failing once, and enabled again by hand', () => {
    const state = fold(webhookEndpointDecider, [createdEndpoint]);
    const disabled = asArray(webhookEndpointDecider.decide({ type: 'DisableFailing', failingSince: 1000, now: 500_000 }, state)).reduce(webhookEndpointDecider.evolve, state);
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    expect(webhookEndpointDecider.decide({ type: 'DisableFailing', failingSince: 1000, now: 500_001 }, disabled)).toEqual([]);
    const enabled = asArray(webhookEndpointDecider.decide({ type: 'Update', organizationId: 'org_1', enabled: true, now: 600_000 }, disabled)).reduce(webhookEndpointDecider.evolve, disabled);
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null });
  });
});

describe('secret box', () => {
  it('seals so the sealed text holds no trace of the secret, opens only with the same service secret', () => {
    const box = secretBox(Buffer.alloc(32, 1));
    const sealed = box.seal('whsec_abc');
    expect(sealed).not.toContain('abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(() => secretBox(Buffer.alloc(32, 2)).open(sealed)).toThrow();
  });
});
