import type { RefundResult } from '../../modules/payments/livePayments.ts';
import { connectStripe, disconnectStripe, stripeSecrets, type StripeAccountSummary } from '../../modules/payments/stripeAccountCommands.ts';
import { formatMoney } from '../../modules/receipts/domain/receiptMessage.ts';
import { DomainError } from '../../platform/domain/domainError.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { serviceBaseUrl } from '../../platform/runtime/serverUrlFile.ts';
import { CliUsageError, requireOption, type CliCommand } from '../command.ts';

const describe = (s: StripeAccountSummary) =>
  s.connected ? `Stripe connected: ${s.secret_key} (${s.mode} mode, ${s.key_type} key), publishable key ${s.publishable_key}` : 'Stripe not connected';

export const stripeConnectCommand: CliCommand = {
  path: ['stripe', 'connect'],
  usage: 'stripe connect --org ORG --secret-key sk_… --publishable-key pk_… --webhook-secret whsec_…',
  description:
    "Connect an organization's Stripe account so its live sessions take payments. The secret key and webhook secret are stored encrypted and never shown again; point a Stripe webhook endpoint at /webhooks/stripe/ORG.",
  options: { org: 'string', 'secret-key': 'string', 'publishable-key': 'string', 'webhook-secret': 'string' },
  async run({ services, options, commandContext }) {
    const org = requireOption(options, 'org');
    return connectStripe(commandContext(org), stripeSecrets(services), {
      organizationId: org,
      secretKey: requireOption(options, 'secret-key'),
      publishableKey: requireOption(options, 'publishable-key'),
      webhookSecret: requireOption(options, 'webhook-secret'),
    });
  },
  format: describe,
};

export const stripeDisconnectCommand: CliCommand = {
  path: ['stripe', 'disconnect'],
  usage: 'stripe disconnect --org ORG',
  description: "Disconnect an organization's Stripe account: new live sessions are refused from then on.",
  options: { org: 'string' },
  async run({ services, options, commandContext }) {
    const org = requireOption(options, 'org');
    return disconnectStripe(commandContext(org), services.stripeCredentials, org);
  },
  format: describe,
};

/** Digits after the decimal point of a currency's minor unit: 2 for EUR, 0 for JPY, 3 for KWD. */
function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** `1.00` in the invoice's currency as minor units; refused when it has more decimals than the currency. */
export function parseMajorAmount(raw: string, currency: string): number {
  const digits = minorDigits(currency);
  const match = /^(\d{1,9})(?:\.(\d+))?$/.exec(raw);
  if (!match || (match[2] ?? '').length > digits) {
    throw new CliUsageError(`--amount is in ${currency} with up to ${digits} decimals (${digits ? `1.${'0'.repeat(digits)}` : '1'}); give minor units with --amount-minor`);
  }
  const minor = Number(match[1]) * 10 ** digits + Number((match[2] ?? '').padEnd(digits, '0') || '0');
  if (minor < 1) throw new CliUsageError('--amount must be more than zero');
  return minor;
}

type RemoteRefund = RefundResult & { invoice_number: number };

/** The service's error answer as the CLI reports it: its message and code, as the API gave them. */
function serviceError(status: number, body: unknown): DomainError {
  const b = (body ?? {}) as { message?: unknown; code?: unknown; errors?: Record<string, string[]> };
  const kind = status === 404 ? 'not_found' : status === 422 ? 'invalid' : status === 403 || status === 401 ? 'forbidden' : 'conflict';
  return new DomainError(kind, typeof b.code === 'string' ? b.code : 'error', typeof b.message === 'string' ? b.message : `The service answered ${status}.`, b.errors);
}

export const refundCommand: CliCommand = {
  path: ['refund'],
  usage: 'refund --invoice in_… [--amount 1.00 | --amount-minor 100] [--reason R]',
  description:
    "Refund a paid invoice in full, or an amount of it (--amount in the invoice's currency, or --amount-minor in minor units), through the running service with an owner's API key in COMMERCE_API_KEY; the service calls Stripe for a live payment and makes a credit note.",
  options: { invoice: 'string', amount: 'string', 'amount-minor': 'string', reason: 'string' },
  standalone: true,
  async run({ options }) {
    const invoiceId = requireOption(options, 'invoice');
    if (options.amount !== undefined && options['amount-minor'] !== undefined) throw new CliUsageError('give --amount or --amount-minor, not both');
    const rawMinor = options['amount-minor'];
    if (rawMinor !== undefined && (typeof rawMinor !== 'string' || !/^\d{1,8}$/.test(rawMinor) || Number(rawMinor) < 1)) {
      throw new CliUsageError('--amount-minor must be a whole number of minor units, 1 or more (100 for 1.00 EUR)');
    }
    const reason = options.reason;
    if (reason !== undefined && (typeof reason !== 'string' || !['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory'].includes(reason))) {
      throw new CliUsageError('--reason is one of duplicate, fraudulent, order_change, product_unsatisfactory');
    }
    const apiKey = process.env.COMMERCE_API_KEY;
    if (!apiKey) throw new CliUsageError("set COMMERCE_API_KEY to an owner's API key (commerce api-key create): the refund goes through the running service");
    const base = serviceBaseUrl(loadConfig());
    const call = async (method: string, path: string, body?: unknown) => {
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(60_000),
        });
      } catch (error) {
        throw new DomainError('conflict', 'service_unreachable', `The service at ${base} did not answer (${(error as Error).message}); is \`commerce serve\` running? BASE_URL names another address.`);
      }
      const text = await response.text();
      const parsed: unknown = text ? JSON.parse(text) : null;
      if (!response.ok) throw serviceError(response.status, parsed);
      return parsed;
    };
    const invoice = (await call('GET', `/api/invoices/${encodeURIComponent(invoiceId)}`)) as { number: number; currency: string };
    const amount = typeof options.amount === 'string' ? parseMajorAmount(options.amount, invoice.currency) : rawMinor !== undefined ? Number(rawMinor) : null;
    const refund = (await call('POST', `/api/invoices/${encodeURIComponent(invoiceId)}/refunds`, { ...(amount !== null ? { amount } : {}), ...(reason ? { reason } : {}) })) as RefundResult;
    return { ...refund, invoice_number: invoice.number } satisfies RemoteRefund;
  },
  format: (r: RemoteRefund) => {
    const money = (minor: number) => formatMoney(minor, r.currency);
    const state = r.fully_refunded ? 'refunded in full' : `${money(r.amount_refunded)} refunded in all`;
    return `Refunded ${money(r.amount)} of ${money(r.invoice_total)} on invoice #${r.invoice_number} (${r.invoice_id}): ${state}.${r.credit_note ? ` Credit note ${r.credit_note.number}.` : ''}`;
  },
};

export const paymentCommands = [stripeConnectCommand, stripeDisconnectCommand, refundCommand];
