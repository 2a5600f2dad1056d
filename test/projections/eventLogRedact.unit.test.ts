import { describe, expect, it } from 'vitest';
import { redact } from '../../modules/reporting/eventLogProjection.ts';

describe('the event log view of event data', () => {
  it('replaces secrets at any depth, in a copy', () => {
    const data = { name: 'Signed', actions: [{ type: 'send_webhook', signing_secret: 'whsec_x', headers: { a: '1' } }], nested: { deeper: { token_hash: 'h' } } };
    expect(redact(data)).toEqual({ name: 'Signed', actions: [{ type: 'send_webhook', signing_secret: '[redacted]', headers: { a: '1' } }], nested: { deeper: { token_hash: '[redacted]' } } });
    expect(data.actions[0]!.signing_secret).toBe('whsec_x');
  });

  it('gives data without a secret back as it is, not copied', () => {
    const payload = Object.freeze({ webhook_payload: { email: 'a@example.com', items: [{ sku: 'A' }] }, headers: { 'x-secretive': 'no' } });
    expect(redact(payload)).toBe(payload);
    expect(redact('text')).toBe('text');
    expect(redact(null)).toBeNull();
  });
});
