import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { appendPricedSale, appendRefund, consumer, launch20 } from './pricedSale.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WAIT = { timeout: 30_000, interval: 100 };

async function pdfText(data: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data });
  try {
    return (await parser.getText()).text.replace(/\s+/g, ' ');
  } finally {
    await parser.destroy();
  }
}

describe('credit notes of a discounted, taxed invoice', { timeout: 90_000 }, () => {
  let server: TestServer;
  let org: { organizationId: string; token: string };
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.identity('Credit Shop');
  });
  afterAll(() => server?.close({ remove: true }));

  const notesOf = async (invoiceId: string, count: number): Promise<Body[]> => {
    let notes: Body[] = [];
    await vi.waitFor(async () => {
      await server.settle();
      notes = ((await (await server.fetch(`/api/credit_notes?invoice=${invoiceId}`, { token: org.token })).json()) as Body).data as Body[];
      expect(notes).toHaveLength(count);
    }, WAIT);
    return notes;
  };

  it('splits each refund into net and tax in the invoice’s proportion, never more tax back than was charged', async () => {
    const at = Math.floor(Date.now() / 1000);
    const sale = await appendPricedSale(server.services.store, {
      organizationId: org.organizationId,
      lines: [
        { name: 'Pro plan', amount: 10_000 },
        { name: 'Add-on', amount: 2_500 },
      ],
      discount: launch20(),
      customer: consumer('DE'),
      at,
    });
    expect(sale).toMatchObject({ total: 11_900, pricing: { total_tax: 1_900, total_discount: 2_500 } });

    await appendRefund(server.services.store, sale, { organizationId: org.organizationId, amount: 5_000, amountRefunded: 5_000, at: at + 60 });
    const [first] = await notesOf(sale.invoiceId, 1);
    // 5000 / 11900 of the tax (798.3…) and of the discount (1050.4…), rounded by largest remainder.
    expect(first).toMatchObject({
      amount: 5_000,
      total_excluding_tax: 4_202,
      subtotal: 6_050 - 798,
      tax_amounts: [{ amount: 798, inclusive: false, percentage: 19, taxability_reason: 'standard_rated', taxable_amount: 4_202, tax_rate: { percentage: 19, country: 'DE' } }],
      discount_amounts: [{ amount: 1_050, discount: { promotion_code: { code: 'LAUNCH20' } } }],
      lines: [{ description: `Refund of invoice #${sale.number}`, amount: 5_000, amount_excluding_tax: 4_202, tax_amount: 798, discount_amount: 1_050 }],
    });

    // The rest: what remains of the tax, so the two notes give back exactly what was charged.
    await appendRefund(server.services.store, sale, { organizationId: org.organizationId, amount: 6_900, amountRefunded: 11_900, at: at + 120 });
    const notes = await notesOf(sale.invoiceId, 2);
    expect(notes[1]).toMatchObject({ amount: 6_900, total_excluding_tax: 5_798, tax_amounts: [{ amount: 1_102 }], discount_amounts: [{ amount: 1_450 }] });
    expect(notes.reduce((sum, n) => sum + (n.tax_amounts[0].amount as number), 0)).toBe(1_900);

    const pdf = await server.fetch(`/api/credit_notes/${first!.id}/pdf`, { token: org.token });
    expect(pdf.status).toBe(200);
    const text = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(text).toContain(`Refund of invoice #${sale.number} €50.00`);
    expect(text).toContain('Discount (LAUNCH20) given back €10.50');
    expect(text).toContain('Net credited €42.02');
    expect(text).toContain('VAT 19% €7.98');
    expect(text).toContain('Amount credited €50.00');
  });

  it('credits each line with its own tax when the whole invoice is refunded at once', async () => {
    const at = Math.floor(Date.now() / 1000);
    const sale = await appendPricedSale(server.services.store, {
      organizationId: org.organizationId,
      lines: [
        { name: 'Pro plan', amount: 10_000 },
        { name: 'Add-on', amount: 2_500 },
      ],
      customer: consumer('DE'),
      at,
    });
    await appendRefund(server.services.store, sale, { organizationId: org.organizationId, amount: sale.total, amountRefunded: sale.total, at: at + 60 });
    const [note] = await notesOf(sale.invoiceId, 1);
    expect(note).toMatchObject({
      amount: 14_875,
      total_excluding_tax: 12_500,
      tax_amounts: [{ amount: 2_375 }],
      discount_amounts: [],
      lines: [
        { description: 'Pro plan', amount: 11_900, amount_excluding_tax: 10_000, tax_amount: 1_900, discount_amount: 0 },
        { description: 'Add-on', amount: 2_975, amount_excluding_tax: 2_500, tax_amount: 475, discount_amount: 0 },
      ],
    });
    const text = await pdfText(new Uint8Array(await (await server.fetch(`/api/credit_notes/${note!.id}/pdf`, { token: org.token })).arrayBuffer()));
    expect(text).toContain('Pro plan €119.00 Add-on €29.75');
    expect(text).toContain('VAT 19% €23.75');
  });
});
