import { serviceBaseUrl } from '../../platform/runtime/serverUrlFile.ts';
import { WORKFLOWS, type WorkflowDoc } from '../../modules/automation/automationProjection.ts';
import { CATALOG_PRODUCTS, type ProductDoc } from '../../modules/catalog/catalogProjection.ts';
import { CHECKOUT_SESSIONS, OFFERS, type OfferDoc, type SessionDoc } from '../../modules/checkout/checkoutProjection.ts';
import { API_KEYS, ORGANIZATIONS, USERS, type ApiKeyDoc, type OrganizationDoc, type UserDoc } from '../../modules/identity/identityProjection.ts';
import { effectiveStatus } from '../../modules/checkout/domain/checkoutSession.ts';
import { CliUsageError, listCommand, orgFilter, table, type CliOptions } from '../command.ts';
import { money } from './checkout.ts';

const iso = (unix: number | null) => (unix === null ? '-' : new Date(unix * 1000).toISOString().slice(0, 16).replace('T', ' '));

/** The hosted checkout page of an offer: the link a seller hands to buyers. */
export const checkoutUrl = (base: string, slug: string) => `${base}/checkout/${encodeURIComponent(slug)}`;

function limitOption(options: CliOptions, command: string): number {
  const raw = options.limit ?? '50';
  if (typeof raw !== 'string' || !/^\d{1,6}$/.test(raw) || Number(raw) < 1) throw new CliUsageError(`${command}: --limit takes a whole number from 1, e.g. --limit 20`);
  return Number(raw);
}

export const productListCommand = listCommand(
  'product',
  'List products with their route key (id), import key, status and version.',
  async ({ services, options }) => {
    const docs = await services.readStore.find<ProductDoc>(CATALOG_PRODUCTS, { filter: orgFilter(options), sort: [['organization_id', 1], ['number', 1]] });
    return docs.map((p) => ({
      id: p.route_key,
      key: p.key,
      organization_id: p.organization_id,
      name: p.display_name ?? p.name,
      status: p.status,
      version_number: p.version_number,
      published_at: p.published_at,
    }));
  },
  (rows) =>
    table(
      ['ID', 'KEY', 'ORGANIZATION', 'STATUS', 'VERSION', 'PUBLISHED', 'NAME'],
      rows.map((r) => [r.id, r.key, r.organization_id, r.status, String(r.version_number), r.published_at ? 'yes' : 'no', r.name ?? '-']),
    ),
);

export const offerListCommand = listCommand(
  'offer',
  'List offers with their status, price and checkout link (the hosted checkout page; published offers only answer).',
  async ({ services, options }) => {
    const base = serviceBaseUrl(services.config);
    const docs = await services.readStore.find<OfferDoc>(OFFERS, { filter: orgFilter(options), sort: [['organization_id', 1], ['number', 1]] });
    return docs.map((o) => ({
      id: o.route_key,
      slug: o.slug,
      uuid: o.uuid,
      organization_id: o.organization_id,
      name: o.name,
      status: o.status,
      price: o.price,
      currency: o.currency,
      checkout_url: checkoutUrl(base, o.slug),
    }));
  },
  (rows) =>
    table(
      ['ID', 'SLUG', 'ORGANIZATION', 'STATUS', 'PRICE', 'CHECKOUT LINK'],
      rows.map((r) => [r.id, r.slug, r.organization_id, r.status, money(r.price, r.currency), r.status === 'published' ? r.checkout_url : '-']),
    ),
);

export const sessionListCommand = listCommand(
  'session',
  'List checkout sessions, newest first (--limit N, default 50), with the buyer’s email and invoice.',
  async ({ services, options }) => {
    const limit = limitOption(options, 'session list');
    const now = Math.floor(services.clock() / 1000);
    const docs = await services.readStore.find<SessionDoc>(CHECKOUT_SESSIONS, { filter: orgFilter(options), sort: [['created_at', -1]], limit });
    return docs.map((s) => ({
      id: s.id,
      organization_id: s.organization_id,
      offer: s.offer.slug,
      status: effectiveStatus(s.status, s.expires_at, now),
      mode: s.mode,
      total: s.total,
      currency: s.currency,
      email: s.invoice?.customer?.email ?? s.customer?.email ?? null,
      invoice_number: s.invoice?.number ?? null,
      invoice_status: s.invoice?.status ?? null,
      refund_status: s.invoice?.refund_status ?? null,
      amount_refunded: s.invoice?.amount_refunded ?? 0,
      created_at: s.created_at,
    }));
  },
  (rows) =>
    table(
      ['ID', 'CREATED (UTC)', 'OFFER', 'STATUS', 'MODE', 'TOTAL', 'EMAIL', 'INVOICE'],
      rows.map((r) => [
        r.id,
        iso(r.created_at),
        r.offer,
        r.refund_status ?? r.status,
        r.mode,
        r.amount_refunded > 0 ? `${money(r.total, r.currency)} (${money(r.amount_refunded, r.currency)} refunded)` : money(r.total, r.currency),
        r.email ?? '-',
        r.invoice_number === null ? '-' : `#${r.invoice_number} ${r.invoice_status}`,
      ]),
    ),
  { options: { limit: 'string' }, usage: ' [--limit N]' },
);

export const apiKeyListCommand = listCommand(
  'api-key',
  'List API keys (never their tokens, which are shown once) with their owner and status.',
  async ({ services, options }) => {
    const now = Math.floor(services.clock() / 1000);
    const docs = await services.readStore.find<ApiKeyDoc>(API_KEYS, { filter: orgFilter(options), sort: [['organization_id', 1], ['created_at', 1]] });
    const emails = new Map<string, string | null>();
    for (const id of new Set(docs.map((k) => k.user_id))) emails.set(id, (await services.readStore.get<UserDoc>(USERS, id))?.email ?? null);
    return docs.map((k) => ({
      id: k.id,
      organization_id: k.organization_id,
      user_id: k.user_id,
      email: emails.get(k.user_id) ?? null,
      name: k.name,
      status: k.revoked_at !== null ? 'revoked' : k.expires_at !== null && k.expires_at <= now ? 'expired' : 'active',
      created_at: k.created_at,
      expires_at: k.expires_at,
      last_used_at: k.last_used_at ?? null,
    }));
  },
  (rows) =>
    table(
      ['ID', 'ORGANIZATION', 'STATUS', 'CREATED (UTC)', 'LAST USED (UTC)', 'USER', 'NAME'],
      rows.map((r) => [r.id, r.organization_id, r.status, iso(r.created_at), r.last_used_at === null ? '-' : iso(r.last_used_at), r.email ?? r.user_id, r.name]),
    ),
);

export const orgListCommand = listCommand(
  'org',
  'List organizations.',
  async ({ services }) => {
    const docs = await services.readStore.find<OrganizationDoc>(ORGANIZATIONS, { sort: [['created_at', 1]] });
    return docs.map(({ id, name, timezone, created_at }) => ({ id, name, timezone, created_at }));
  },
  (rows) => table(['ID', 'TIMEZONE', 'CREATED (UTC)', 'NAME'], rows.map((r) => [r.id, r.timezone, iso(r.created_at), r.name])),
  { org: false },
);

export const workflowListCommand = listCommand(
  'workflow',
  'List workflow runs, newest first (--limit N, default 50); `workflow show ID` shows one.',
  async ({ services, options }) => {
    const limit = limitOption(options, 'workflow list');
    const docs = await services.readStore.find<WorkflowDoc>(WORKFLOWS, { filter: orgFilter(options), sort: [['workflow_id', -1]], limit });
    return docs.map((w) => ({
      workflow_id: w.workflow_id,
      organization_id: w.organization_id,
      trigger_id: w.trigger_id,
      sequence_id: w.sequence_id,
      status: w.status,
      steps_run: w.steps.length,
      step_count: w.step_count,
      started_at: w.started_at,
    }));
  },
  (rows) =>
    table(
      ['ID', 'ORGANIZATION', 'SEQUENCE', 'TRIGGER', 'STATUS', 'STEPS', 'STARTED (UTC)'],
      rows.map((r) => [String(r.workflow_id), r.organization_id, String(r.sequence_id), String(r.trigger_id), r.status, `${r.steps_run}/${r.step_count}`, iso(r.started_at)]),
    ),
  { options: { limit: 'string' }, usage: ' [--limit N]' },
);
