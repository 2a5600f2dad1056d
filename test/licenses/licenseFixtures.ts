import { randomUUID } from 'node:crypto';
import { toNewEvent } from '../../platform/es/index.ts';
import type { LicenseKeyBenefitProperties } from '../../modules/benefits/domain/benefitTypes.ts';
import { benefitGrantStream, productBenefitsStream } from '../../modules/benefits/domain/benefitTypes.ts';
import { licenseKeyIdFor, licenseKeyStream } from '../../modules/licenses/index.ts';
import type { TestServer } from '../helpers/testServer.ts';

/**
 * Benefits' events as modules/benefits appends them (the event contract), so license keys are
 * tested on their own: a benefit on its product's stream, a grant and its revocation on the grant's.
 */
export function benefitEvents(server: TestServer, organizationId: string) {
  const ctx = () => server.cliContext(organizationId);
  const now = () => Math.floor(server.services.clock() / 1000);
  const append = async (stream: string, type: string, data: unknown) => {
    await server.services.store.append(stream, [toNewEvent({ type, data }, ctx().metadata)], 'any');
  };
  return {
    async createBenefit(properties: Partial<LicenseKeyBenefitProperties> = {}) {
      const productId = `prod_${randomUUID().slice(0, 8)}`;
      const benefitId = `ben_${randomUUID().slice(0, 8)}`;
      const full: LicenseKeyBenefitProperties = { prefix: 'APP', activation_limit: 2, expires_after_days: null, bound_to: 'perpetual', ...properties };
      await append(productBenefitsStream(productId), 'BenefitCreated', {
        id: benefitId,
        organization_id: organizationId,
        product_id: productId,
        type: 'license_key',
        description: 'App license',
        properties: full,
        created_at: now(),
      });
      return { productId, benefitId };
    },
    async grant(benefit: { productId: string; benefitId: string }, grantId = `bgr_${randomUUID().replace(/-/g, '')}`, customerId = 'cus_buyer') {
      await append(benefitGrantStream(grantId), 'BenefitGranted', {
        grant_id: grantId,
        organization_id: organizationId,
        mode: 'test',
        benefit_id: benefit.benefitId,
        benefit_type: 'license_key',
        product_id: benefit.productId,
        customer_id: customerId,
        source: { type: 'checkout_session', id: `cs_${grantId}` },
        cause: 'checkout.completed',
        invoice_id: null,
        granted_at: now(),
      });
      return grantId;
    },
    async revoke(grantId: string) {
      await append(benefitGrantStream(grantId), 'BenefitRevoked', { grant_id: grantId, cause: 'refund', revoked_at: now() });
    },
  };
}

/** Waits (polling) until the condition holds. */
export async function waitUntil<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The event types on a grant's key stream once the subscriber has appended `count` of them. */
export async function keyEvents(server: TestServer, grantId: string, count = 1): Promise<string[]> {
  return waitUntil(`${count} events on the key of ${grantId}`, async () => {
    const events = await server.services.store.readStream(licenseKeyStream(licenseKeyIdFor(grantId)));
    return events.length >= count ? events.map((e) => e.type) : null;
  });
}

/** A license key of the organization, issued from a grant as modules/benefits makes one (test/helpers/seed.ts). */
export async function seedLicenseKey(server: TestServer, organizationId: string, benefit?: { productId: string; benefitId: string }): Promise<string> {
  const events = benefitEvents(server, organizationId);
  const grantId = await events.grant(benefit ?? (await events.createBenefit()));
  await keyEvents(server, grantId);
  return licenseKeyIdFor(grantId);
}
