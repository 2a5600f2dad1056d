import { serviceBaseUrl } from '../../platform/runtime/serverUrlFile.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sendWebhookSecretBox } from '../../modules/automation/sendWebhookSecrets.ts';
import { parseApiKey, secretMatches } from '../../modules/identity/credentials.ts';
import { apiKeyStream } from '../../modules/identity/domain/apiKey.ts';
import { secretBox } from '../../platform/lib/secretBox.ts';
import {
  createApiKey,
  createOrganization,
  createUser,
  organizationExists,
} from '../../modules/identity/identityCommands.ts';
import { runImport } from '../../app/import/importFile.ts';
import type { ProductWriteResult } from '../../modules/catalog/productCommands.ts';
import type { CliCommand, CliContext } from '../command.ts';
import { demoCatalog } from './demoCatalog.ts';
import { demoAutomation, DEMO_PROMO_SLUG } from './demoAutomation.ts';
import { demoCoupons } from './demoCoupons.ts';
import { catchUrl } from './automation.ts';
import type { SequenceImportResult } from '../../modules/automation/automationImport.ts';
import { demoOffers } from './demoOffer.ts';
import { demoBenefits } from './demoBenefits.ts';
import { formatInvitation, invitationIfNeeded } from './userAccess.ts';
import type { OfferImportResult } from '../../modules/checkout/offerImport.ts';
import type { OfferDoc } from '../../modules/checkout/checkoutProjection.ts';
import { findOfferByRef } from '../../modules/checkout/checkoutQueries.ts';
import { checkoutUrl } from './lists.ts';

export const DEMO_ORGANIZATION_ID = 'org_demo';
export const DEMO_EMAIL = 'demo@example.com';

/** Where the demo keeps its API key's token, sealed, so that a second run prints the same key. */
const DEMO_KEY_FILE = 'demo-api-key';

/** The key an earlier run made while it is live, else a new one: the curl lines printed before keep working. */
async function demoApiKey(ctx: CliContext, userId: string): Promise<{ token: string; reused: boolean }> {
  const cmd = ctx.commandContext(DEMO_ORGANIZATION_ID);
  const box = secretBox(ctx.services.secrets.data, 'commerce demo api key');
  const file = join(resolve(ctx.services.config.DATA_DIR), DEMO_KEY_FILE);
  let kept: string | null = null;
  try {
    kept = box.open(readFileSync(file, 'utf8').trim());
  } catch {
    // None yet, or sealed with other secrets: a new key.
  }
  const parsed = kept ? parseApiKey(kept) : null;
  if (kept && parsed) {
    const events = await cmd.store.readStream(apiKeyStream(parsed.id));
    const created = events[0]?.type === 'ApiKeyCreated' ? (events[0].data as { user_id: string; organization_id: string; secret_hash: string; expires_at?: number | null }) : null;
    const live = created !== null && !events.some((e) => e.type === 'ApiKeyRevoked') && !created.expires_at;
    if (live && created.user_id === userId && created.organization_id === DEMO_ORGANIZATION_ID && secretMatches(parsed.secret, created.secret_hash)) {
      return { token: kept, reused: true };
    }
  }
  const key = await createApiKey(cmd, { userId, organizationId: DEMO_ORGANIZATION_ID, name: 'demo' });
  writeFileSync(file, `${box.seal(key.token)}\n`, { mode: 0o600 });
  return { token: key.token, reused: false };
}

/** Sets up the demo organization, user, key, catalog and digital goods; a re-run changes nothing. */
async function runDemo(ctx: CliContext) {
  const cmd = ctx.commandContext(DEMO_ORGANIZATION_ID);
  if (!(await organizationExists(cmd, DEMO_ORGANIZATION_ID))) {
    await createOrganization(cmd, { id: DEMO_ORGANIZATION_ID, name: 'Demo Store', timezone: 'Europe/Amsterdam' });
  }
  const user = await createUser(cmd, { email: DEMO_EMAIL, organizationId: DEMO_ORGANIZATION_ID });
  const key = await demoApiKey(ctx, user.id);
  const invitation = await invitationIfNeeded(ctx.services, cmd, user.id);
  // An archived offer cannot be published again: one archived since the last run is left out of
  // the import, which would otherwise refuse the whole file.
  await ctx.catchUp();
  const archived = new Map<string, OfferDoc>();
  for (const { slug } of demoOffers) {
    const doc = await findOfferByRef(ctx.services.readStore, slug);
    if (doc?.organization_id === DEMO_ORGANIZATION_ID && doc.status === 'archived') archived.set(slug, doc);
  }
  // Imported by key: a second run finds the same products and records nothing new.
  const imported = await runImport(
    { command: cmd, organizationId: DEMO_ORGANIZATION_ID, catchUp: ctx.catchUp, sendWebhookSecrets: sendWebhookSecretBox(ctx.services.secrets.jwt) },
    { ...demoCatalog, ...demoAutomation(cmd.metadata.occurred_at), offers: demoOffers.filter((o) => !archived.has(o.slug)), ...(await demoCoupons(cmd, DEMO_ORGANIZATION_ID)) },
  );
  const base = serviceBaseUrl(ctx.services.config);
  const products = (imported.sections.products as ProductWriteResult[]).map((p) => p.id);
  // The demo offer is the first of the demo's offers (the subscription), published or archived.
  const offer = [
    ...((imported.sections.offers ?? []) as OfferImportResult[]).map((o) => ({ id: o.id, slug: o.slug, uuid: o.uuid, status: 'published' as const })),
    ...[...archived.values()].map((o) => ({ id: o.route_key, slug: o.slug, uuid: o.uuid, status: 'archived' as const })),
  ]
    .map((o) => ({ ...o, checkout_url: checkoutUrl(base, o.slug) }))
    .find((o) => o.slug === demoOffers[0]!.slug);
  const routeKeyOf = (key: string) => (imported.sections.products as ProductWriteResult[]).find((p) => p.key === key)!.id;
  const goods = { zine: routeKeyOf('zine'), app: routeKeyOf('darkroom') };
  const benefits = await demoBenefits(cmd, ctx.services.files, DEMO_ORGANIZATION_ID, goods);
  const good = (product: string, benefit: string, offer: string) => ({ product, benefit, offer, checkout_url: checkoutUrl(base, offer) });
  const trigger = (imported.sections.sequences as SequenceImportResult[])[0]!.triggers[0]!;
  // The demo file's trigger is a webhook trigger: it has a catch path.
  const [, , , sequenceKey, triggerKey] = trigger.catch_path!.split('/');
  return {
    organization: { id: DEMO_ORGANIZATION_ID },
    user: { id: user.id, email: user.email },
    token: key.token,
    api_key_reused: key.reused,
    invitation,
    products,
    catch_url: catchUrl(ctx.services, sequenceKey!, triggerKey!),
    trigger_id: trigger.trigger_id,
    promo: { slug: DEMO_PROMO_SLUG },
    offer: offer!,
    url: base,
    sdk_example_url: `${base}/examples/sdk`,
    digital: { zine: good(goods.zine, benefits.zine, 'zine-pdf'), app: good(goods.app, benefits.app, 'darkroom-app') },
  };
}

export const demoCommand: CliCommand = {
  path: ['demo'],
  usage: 'demo',
  description: 'Create (idempotently) a demo organization, user, API key and catalog; print the token (the same key on every run).',
  run: runDemo,
  format: (d: Awaited<ReturnType<typeof runDemo>>) =>
    [
      `Demo organization ${d.organization.id}, user ${d.user.email} (${d.user.id}).`,
      `API key${d.api_key_reused ? ' (the one the first run made)' : ''}: ${d.token}`,
      ...(d.invitation ? ['', formatInvitation(d.invitation)] : []),
      '',
      ...(d.offer.status === 'published'
        ? [`Checkout link of the offer ${d.offer.slug} (open it, pay with 4242 4242 4242 4242):`, `  ${d.offer.checkout_url}`]
        : []),
      `SDK example page (every SDK method, on this offer): ${d.sdk_example_url}`,
      '',
      'Digital goods (pay, and the thank-you page shows the download or the key):',
      `  the zine, with its PDF: ${d.digital.zine.checkout_url}`,
      `  the Darkroom app, with a license key: ${d.digital.app.checkout_url}`,
      '',
      'Try:',
      `  curl -H "Authorization: Bearer ${d.token}" ${d.url}/api/users/me`,
      `  curl -H "Authorization: Bearer ${d.token}" ${d.url}/api/catalog/products`,
      ...d.products.slice(0, 1).flatMap((id) => [
        `  curl -H "Authorization: Bearer ${d.token}" ${d.url}/api/catalog/products/${id}`,
        `  curl -H "Authorization: Bearer ${d.token}" ${d.url}/api/catalog/products/${id}/plans`,
      ]),
      `  curl -X POST -H "Content-Type: application/json" -d '{"email":"fan@example.com","ref":"demo-1"}' ${d.catch_url}`,
      `  curl ${d.url}/api/promos/${d.promo.slug}`,
      ...(d.offer.status === 'published'
        ? [
            `  curl "${d.url}/api/checkout?offer=${d.offer.slug}"`,
            `  curl -X POST -H "Content-Type: application/json" -d '{"offer":"${d.offer.slug}"}' ${d.url}/api/checkout/sessions`,
          ]
        : ['', `(The demo offer ${d.offer.slug} is archived, so its checkout lines are left out.)`]),
    ].join('\n'),
};
