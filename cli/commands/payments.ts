import { refundInvoice, type RefundResult } from '../../modules/payments/livePayments.ts';
import { connectStripe, disconnectStripe, stripeSecrets, type StripeAccountSummary } from '../../modules/payments/stripeAccountCommands.ts';
import { invoiceDecider, invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { fold } from '../../platform/domain/decider.ts';
import { notFound } from '../../platform/domain/domainError.ts';
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

export const refundCommand: CliCommand = {
  path: ['refund'],
  usage: 'refund --invoice in_… [--amount MINOR_UNITS]',
  description: 'Refund a paid invoice in full, or AMOUNT (minor units) of it: through Stripe for a live payment.',
  options: { invoice: 'string', amount: 'string' },
  async run({ services, options, commandContext }) {
    const invoiceId = requireOption(options, 'invoice');
    const raw = options.amount;
    let amount: number | null = null;
    if (raw !== undefined) {
      if (typeof raw !== 'string' || !/^\d{1,8}$/.test(raw) || Number(raw) < 1) throw new CliUsageError('--amount must be a whole number of minor units, 1 or more (1250 for 12.50)');
      amount = Number(raw);
    }
    const invoice = fold(invoiceDecider, (await services.store.readStream(invoiceStream(invoiceId))) as never);
    if (invoice.status === 'none') throw notFound('Invoice');
    const org = invoice.invoice.organization_id;
    return refundInvoice(commandContext(org), services, org, invoiceId, amount);
  },
  format: (r: RefundResult) =>
    `refunded ${r.amount} ${r.currency} of invoice ${r.invoice_id} (${r.refund_id}); ${r.amount_refunded} refunded in all${r.fully_refunded ? ', in full' : ''}`,
};

export const paymentCommands = [stripeConnectCommand, stripeDisconnectCommand, refundCommand];
