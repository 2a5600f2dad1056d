import type { PricingRecord, TaxabilityReason } from '../../platform/domain/index.ts';
import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';

/** What an invoice charged in tax, noted when it is created (and repriced), so its payment and credit notes land in its country and rate. */
export const TAX_REPORT_INVOICES = 'tax_report_invoices';
/** One entry per paid invoice and per credit note: what the tax report adds up. */
export const TAX_REPORT_ENTRIES = 'tax_report_entries';

/** The tax an invoice falls under in the report. */
type TaxKey = {
  /** Where the tax applied: the rate's country, else the buyer's; null when neither is known. */
  country: string | null;
  /** The percentage charged (0 for a reverse charge or no tax). */
  rate: number;
  taxability_reason: TaxabilityReason;
};

type TaxReportInvoice = TaxKey & { id: string; organization_id: string; mode: string; currency: string; total: number; tax: number };
/** A checkout session's mode, for its invoice (which does not name one). */
type TaxReportSession = { id: string; mode: string };

export type TaxReportEntry = TaxKey & {
  id: string;
  organization_id: string;
  mode: string;
  /** When the invoice was paid or the credit note issued, Unix seconds. */
  at: number;
  currency: string;
  /** Net of tax; negative for a credit note. */
  taxable_amount: number;
  tax_amount: number;
  invoices: number;
  credit_notes: number;
  invoice_id: string;
};

/** An invoice's place in the report, from the pricing checkout recorded (none: not collecting tax). */
export function taxKeyOf(pricing: PricingRecord | null | undefined): TaxKey {
  const tax = pricing?.tax ?? null;
  const country = tax?.tax_rate?.country ?? pricing?.customer_details?.address?.country ?? null;
  return { country: country ? country.toUpperCase() : null, rate: tax?.tax_rate?.percentage ?? tax?.percentage ?? 0, taxability_reason: tax?.taxability_reason ?? 'not_collecting' };
}

type InvoiceCreatedData = { id: string; organization_id: string; session_id: string | null; total: number; currency: string; mode?: string; pricing?: PricingRecord };

/**
 * The tax report's read model: each paid invoice adds its net and tax to its period, country,
 * rate, reason and currency; each credit note takes away the net and tax it gave back. Entries
 * carry their time, so a report in any time zone and interval adds them up.
 */
export const taxReportProjection: Projection = {
  name: 'tax_report',
  collections: [TAX_REPORT_INVOICES, TAX_REPORT_ENTRIES],
  writeOnly: [TAX_REPORT_ENTRIES],
  indexes: [{ collection: TAX_REPORT_ENTRIES, fields: ['organization_id', 'at'] }],
  eventTypes: ['CheckoutSessionCreated', 'InvoiceCreated', 'InvoiceRepriced', 'InvoicePaid', 'CreditNoteIssued'],
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    switch (recorded.type) {
      case 'CheckoutSessionCreated': {
        const d = recorded.data as { id: string; mode: string };
        tx.upsert(TAX_REPORT_INVOICES, { id: d.id, mode: d.mode } satisfies TaxReportSession);
        return;
      }
      case 'InvoiceCreated': {
        const d = recorded.data as InvoiceCreatedData;
        // A checkout's invoice takes its session's mode; a subscription's names its own.
        const session = d.mode ? null : d.session_id ? await tx.get<TaxReportSession>(TAX_REPORT_INVOICES, d.session_id) : null;
        tx.upsert(TAX_REPORT_INVOICES, {
          id: d.id,
          organization_id: d.organization_id,
          mode: d.mode ?? session?.mode ?? 'test',
          currency: d.currency,
          total: d.total,
          tax: d.pricing?.total_tax ?? 0,
          ...taxKeyOf(d.pricing),
        } satisfies TaxReportInvoice);
        return;
      }
      case 'InvoiceRepriced': {
        const invoice = await tx.get<TaxReportInvoice>(TAX_REPORT_INVOICES, recorded.stream.slice('invoice-'.length));
        if (!invoice) return;
        const d = recorded.data as { total: number; pricing: PricingRecord };
        tx.upsert(TAX_REPORT_INVOICES, { ...invoice, total: d.total, tax: d.pricing.total_tax, ...taxKeyOf(d.pricing) } satisfies TaxReportInvoice);
        return;
      }
      case 'InvoicePaid': {
        const invoice = await tx.get<TaxReportInvoice>(TAX_REPORT_INVOICES, recorded.stream.slice('invoice-'.length));
        if (!invoice) return;
        const { id, total, tax, ...key } = invoice;
        tx.upsert(TAX_REPORT_ENTRIES, {
          ...key,
          id: `inv:${id}`,
          at: (recorded.data as { paid_at: number }).paid_at,
          taxable_amount: total - tax,
          tax_amount: tax,
          invoices: 1,
          credit_notes: 0,
          invoice_id: id,
        } satisfies TaxReportEntry);
        return;
      }
      case 'CreditNoteIssued': {
        const n = recorded.data as { id: string; invoice_id: string; amount: number; created: number; total_excluding_tax?: number; tax_amounts?: Array<{ amount: number }> };
        const invoice = await tx.get<TaxReportInvoice>(TAX_REPORT_INVOICES, n.invoice_id);
        if (!invoice) return;
        const { id, total: _t, tax: _x, ...key } = invoice;
        const tax = (n.tax_amounts ?? []).reduce((sum, t) => sum + t.amount, 0);
        tx.upsert(TAX_REPORT_ENTRIES, {
          ...key,
          id: `cn:${n.id}`,
          at: n.created,
          taxable_amount: -(n.total_excluding_tax ?? n.amount - tax),
          tax_amount: -tax,
          invoices: 0,
          credit_notes: 1,
          invoice_id: id,
        } satisfies TaxReportEntry);
        return;
      }
    }
  },
};
