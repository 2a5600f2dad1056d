import type { z } from 'zod';
import { fold } from '../../platform/domain/index.ts';
import type { Services } from '../../platform/runtime/index.ts';
import { benefitsByIds, grantIdFor, grantsForSource, productBenefitsStream, type BenefitGrantDoc, type GrantSource, type ProductBenefitsEvent } from '../benefits/index.ts';
import { checkoutSessionStream, invoiceDecider, invoiceStream, type InvoiceEvent } from '../checkout/index.ts';
import { downloadUrl, DOWNLOAD_LINK_TTL_SECONDS, filesByIds } from '../files/index.ts';
import { licenseKeysForGrants } from '../licenses/index.ts';
import { expectedBenefits } from './domain/expectedBenefits.ts';
import type { DeliveredBenefitSchema, DeliveredFileSchema, DeliveredKeySchema, PurchaseBenefitsSchema } from './http/deliverySchemas.ts';

type Reader = Pick<Services, 'store' | 'readStore' | 'secrets' | 'clock'>;

export type DeliveredFile = z.infer<typeof DeliveredFileSchema>;
export type DeliveredKey = z.infer<typeof DeliveredKeySchema>;
/** One granted benefit as the buyer sees it: its files with fresh links, or its key in plain. */
export type DeliveredBenefit = z.infer<typeof DeliveredBenefitSchema>;
/** `pending`: a grant (or its key) the purchase should have is not made yet; ask again shortly. */
export type PurchaseBenefits = z.infer<typeof PurchaseBenefitsSchema>;

/**
 * The granted benefits among `grants`, with fresh 15-minute links to their files (minted now, so
 * a page shows links that work) and their keys in plain. Revoked grants are left out.
 */
export async function deliverGrants(services: Reader, organizationId: string, grants: readonly BenefitGrantDoc[]): Promise<DeliveredBenefit[]> {
  const granted = grants.filter((g) => g.status === 'granted' && g.organization_id === organizationId);
  if (granted.length === 0) return [];
  const benefits = new Map((await benefitsByIds(services.readStore, organizationId, granted.map((g) => g.benefit_id))).map((b) => [b.id, b]));
  const fileIds = [...benefits.values()].flatMap((b) => ('files' in b.properties ? b.properties.files : []));
  const files = new Map((await filesByIds(services.readStore, organizationId, fileIds)).map((f) => [f.id, f]));
  const keys = new Map((await licenseKeysForGrants(services, organizationId, granted.filter((g) => g.benefit_type === 'license_key').map((g) => g.id))).map((k) => [k.grant_id, k]));
  const expiresAt = Math.floor(services.clock() / 1000) + DOWNLOAD_LINK_TTL_SECONDS;
  const out: DeliveredBenefit[] = [];
  // In the order the seller made the benefits: the same on every page and every visit.
  const ordered = [...granted].sort((a, b) => (benefits.get(a.benefit_id)?.created ?? 0) - (benefits.get(b.benefit_id)?.created ?? 0) || a.benefit_id.localeCompare(b.benefit_id));
  const shownFiles = new Set<string>();
  for (const grant of ordered) {
    const benefit = benefits.get(grant.benefit_id);
    if (!benefit) continue;
    // Bought twice, a file benefit delivers the same files: listed once (each key is its own).
    if (benefit.type === 'file' && shownFiles.has(benefit.id)) continue;
    shownFiles.add(benefit.id);
    const listed = 'files' in benefit.properties ? benefit.properties.files : [];
    const key = keys.get(grant.id);
    out.push({
      id: benefit.id,
      grant_id: grant.id,
      type: benefit.type,
      description: benefit.description,
      files: listed.flatMap((id) => {
        const f = files.get(id);
        if (!f) return [];
        const url = downloadUrl(services, { organizationId, fileId: f.id, customerId: grant.customer_id });
        return [{ id: f.id, filename: f.filename, size: f.size, type: f.type, sha256: f.sha256, download_url: url, expires_at: expiresAt }];
      }),
      license_key: key
        ? { id: key.id, key: key.key, status: key.status, activation_limit: key.activation_limit, activation_usage: key.activation_usage, expires_at: key.expires_at }
        : null,
    });
  }
  return out;
}

/**
 * What a paid invoice granted, from the grants' read model; pending while a grant or its key is not
 * made yet (the benefits subscriber makes them after the sale), so a page asks again.
 */
export async function purchaseBenefits(services: Reader, organizationId: string, invoiceId: string): Promise<PurchaseBenefits> {
  const events = await services.store.readStream(invoiceStream(invoiceId));
  const invoice = fold(invoiceDecider, events as unknown as InvoiceEvent[]);
  if (invoice.status === 'none' || invoice.invoice.organization_id !== organizationId) return { pending: false, benefits: [] };
  if (invoice.status !== 'paid') return { pending: false, benefits: [] };
  const source = await sourceOf(services, invoice.invoice.session_id, invoice.invoice.subscription_id ?? null);
  const paid = events.find((e) => e.type === 'InvoicePaid');
  const paidAt = (paid?.data as { paid_at?: number } | undefined)?.paid_at ?? Math.floor(services.clock() / 1000);
  const productIds = [...new Set(invoice.invoice.lines.flatMap((l) => (l.product_id ? [l.product_id] : [])))];
  const expected = (
    await Promise.all(productIds.map(async (p) => expectedBenefits((await services.store.readStream(productBenefitsStream(p))) as unknown as ProductBenefitsEvent[], paidAt)))
  ).flat();
  // Completion not recorded yet: the source (and so every grant) is still to come.
  if (!source) return { pending: expected.length > 0, benefits: [] };
  const grants = await grantsForSource(services.readStore, organizationId, source);
  // A renewal's invoice made no grant of its own: what the subscription has is all there is to wait for.
  const fromCheckout = invoice.invoice.session_id !== null;
  const byId = new Map(grants.map((g) => [g.id, g]));
  const benefits = await deliverGrants(services, organizationId, grants);
  const delivered = new Map(benefits.map((b) => [b.grant_id, b]));
  const pending = fromCheckout && expected.some((b) => {
    const grant = byId.get(grantIdFor(b.id, source));
    if (!grant) return true;
    return grant.status === 'granted' && b.type === 'license_key' && !delivered.get(grant.id)?.license_key;
  });
  return { pending, benefits };
}

/** A one-payment sale grants from its session; a recurring one from the subscription its completion made. */
async function sourceOf(services: Reader, sessionId: string | null, subscriptionId: string | null): Promise<GrantSource | null> {
  if (subscriptionId) return { type: 'subscription', id: subscriptionId };
  if (!sessionId) return null;
  const completed = (await services.store.readStream(checkoutSessionStream(sessionId))).find((e) => e.type === 'CheckoutSessionCompleted');
  if (!completed) return null;
  const subscription = (completed.data as { subscription_id?: string | null }).subscription_id;
  return subscription ? { type: 'subscription', id: subscription } : { type: 'checkout_session', id: sessionId };
}
