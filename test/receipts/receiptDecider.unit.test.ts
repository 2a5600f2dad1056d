import { framedEmail, textToHtml } from '../../modules/receipts/domain/seller.ts';
import { describe, expect, it } from 'vitest';
import { receiptDecider, retryDelaySeconds, type ReceiptEvent, type ReceiptSnapshot, type ReceiptState } from '../../modules/receipts/domain/receipt.ts';
import { formatMoney, receiptEmail } from '../../modules/receipts/domain/receiptMessage.ts';
import { asArray, fold } from '../../platform/domain/decider.ts';

const snapshot: ReceiptSnapshot = {
  invoice_id: 'in_1',
  invoice_number: 7,
  organization_id: 'org_1',
  organization_name: 'Acme <Tools>',
  lines: [{ name: 'Pro monthly', amount: 1900 }],
  total: 1900,
  currency: 'EUR',
  buyer_email: 'ada@example.com',
  buyer_name: null,
  card: { brand: 'visa', last4: '4242' },
  paid_at: 1_790_000_000,
};

const run = (events: ReceiptEvent[], command: Parameters<typeof receiptDecider.decide>[0]) => {
  const state: ReceiptState = fold(receiptDecider, events);
  return asArray(receiptDecider.decide(command, state));
};

describe('the receipt decider', () => {
  const queued: ReceiptEvent = { type: 'ReceiptQueued', data: { receipt: snapshot, token: 't'.repeat(32), queued_at: 1 } };

  it('queues a receipt once: a second QueueReceipt keeps the first token', () => {
    expect(run([], { type: 'QueueReceipt', receipt: snapshot, token: 'a'.repeat(32), now: 1 })).toHaveLength(1);
    expect(run([queued], { type: 'QueueReceipt', receipt: snapshot, token: 'b'.repeat(32), now: 2 })).toEqual([]);
  });

  it('counts failed attempts and records the send once', () => {
    const failed = run([queued], { type: 'RecordSendFailure', error: '451', retryInSeconds: 30, now: 10 });
    expect(failed).toEqual([{ type: 'ReceiptSendFailed', data: { attempt: 1, error: '451', failed_at: 10, next_attempt_at: 40 } }]);
    const sent = run([queued, ...failed], { type: 'RecordSent', messageId: '<m>', now: 50 });
    expect(sent).toEqual([{ type: 'ReceiptSent', data: { attempt: 2, message_id: '<m>', sent_at: 50 } }]);
    expect(run([queued, ...failed, ...sent], { type: 'RecordSent', messageId: '<m>', now: 60 })).toEqual([]);
    expect(run([queued, ...failed, ...sent], { type: 'RecordSendFailure', error: 'x', retryInSeconds: 1, now: 60 })).toEqual([]);
  });

  it('doubles the wait between attempts, up to an hour', () => {
    expect([1, 2, 3, 4].map((n) => retryDelaySeconds(n, 30))).toEqual([30, 60, 120, 240]);
    expect(retryDelaySeconds(20, 30)).toBe(3600);
  });

  it('writes the email with the invoice number, lines and total, and escapes names in its HTML', () => {
    const email = receiptEmail(snapshot, 'https://shop.example/receipts/abc', 'https://shop.example');
    expect(email.subject).toBe('Your receipt from Acme <Tools>: Invoice #7');
    expect(email.text).toContain('Pro monthly: €19.00');
    expect(email.text).toContain('Total: €19.00');
    expect(email.text).toContain('https://shop.example/receipts/abc');
    expect(email.html).toContain('Acme &lt;Tools&gt;');
    expect(email.html).not.toContain('<Tools>');
    expect(formatMoney(500, 'JPY')).toBe('¥500');
  });

  it("frames the email with the seller's logo, name, address and VAT number, in both parts", () => {
    const sha256 = 'ab'.repeat(32);
    const email = receiptEmail(
      { ...snapshot, organization_address: ['Keizersgracht 1', 'NL'], organization_vat_number: 'NL123456789B01', organization_logo: { sha256, content_type: 'image/png' } },
      'https://shop.example/receipts/abc',
      'https://shop.example',
    );
    expect(email.text).toMatch(/\n\nAcme <Tools>\nKeizersgracht 1\nNL\nVAT NL123456789B01$/);
    expect(email.html).toContain(`<img src="https://shop.example/logos/${snapshot.organization_id}/${sha256.slice(0, 32)}.png" alt="Acme &lt;Tools&gt;"`);
    expect(email.html).toContain('Keizersgracht 1<br>NL<br>VAT NL123456789B01');
  });

  it('signs a text once that the sender already signed (a dunning email), and escapes the seller in HTML', () => {
    const seller = { organization_id: 'org_1', name: 'Acme <Tools>', address: ['Keizersgracht 1', 'NL'], vat_number: null, logo: null };
    const signed = framedEmail(seller, 'https://shop.example', { text: 'Hello.\n\nAcme <Tools>\nKeizersgracht 1\nNL', html: '<p>Hello.</p>' });
    expect(signed.text).toBe('Hello.\n\nAcme <Tools>\nKeizersgracht 1\nNL');
    expect(signed.html).toContain('<strong style="font-size:18px">Acme &lt;Tools&gt;</strong>');
    expect(signed.html).not.toContain('<img');
    expect(textToHtml('Pay at https://x.example/a?b=1&c=2\nthanks')).toBe('<p>Pay at <a href="https://x.example/a?b=1&amp;c=2">https://x.example/a?b=1&amp;c=2</a><br>thanks</p>');
  });
});
