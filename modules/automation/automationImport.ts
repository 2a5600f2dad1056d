import { z } from 'zod';
import { minorUnits } from '../../platform/lib/index.ts';
import {
  DEFAULT_EMAIL_TEMPLATE,
  DEFAULT_REFERENCE_TEMPLATE,
  HEADER_NAME,
  HEADER_VALUE,
  HEADER_VALUE_MESSAGE,
  WEBHOOK_METHODS,
  isWebhookUrl,
  payloadTemplateIssue,
  SIGNING_SECRET_MESSAGE,
  isSigningSecret,
  type ActionInput,
} from './domain/actions.ts';
import { createPromo, FIXED_PRICE_NEEDS_OFFERS, SLUG, updatePromo } from '../promos/index.ts';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/index.ts';
import { conflict } from '../../platform/domain/index.ts';
import { applyEach, filePath, type ImportIssue, importSection } from '../../platform/import/index.ts';
import { sealActionSecrets } from './sendWebhookSecrets.ts';
import { createSequence, createTrigger, loadSequence, loadTrigger, setTriggerEnabled, updateSequence } from './automationCommands.ts';
import { backfillAutomationKeyClaims, claimSequenceKey, claimTriggerKey } from './automationKeys.ts';

const identifier = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'Use letters, digits and . _ : - (starting with a letter or digit).');
const slug = z.string().max(100).regex(SLUG, 'Use lower-case letters, digits and dashes.');
const unix = z.number().int().min(0).max(32503680000);

const SendWebhookImport = z
  .strictObject({
    type: z.literal('send_webhook'),
    url: z.string().max(2048).refine(isWebhookUrl, 'Must be an http or https URL.'),
    method: z.enum(WEBHOOK_METHODS).default('POST'),
    payload: z.string().max(64 * 1024).default(''),
    headers: z
      .record(
        z.string().regex(HEADER_NAME, 'Not a valid header name.'),
        // A line break would be refused by the HTTP client at each call, never at import.
        z.string().max(4096).regex(HEADER_VALUE, HEADER_VALUE_MESSAGE),
      )
      .default({}),
    signing_secret: z
      .union([z.string().max(256).refine(isSigningSecret, SIGNING_SECRET_MESSAGE), z.strictObject({ from_step: z.number().int().min(0).max(49) })])
      .nullable()
      .optional()
      .describe(
        'Signs each call as Standard Webhooks. Write-only. Left out on an update: the step keeps the secret of the step at its position; `{"from_step": n}`: the secret of step n (from 0) as the sequence stands; null: unsigned.',
      ),
  })
  .refine((a) => a.method !== 'GET' || a.payload === '', { path: ['payload'], message: 'Leave payload empty for GET.' })
  .superRefine((a, ctx) => {
    // Its place in the file is the issue's path (sequences.N.actions.M.payload).
    const issue = payloadTemplateIssue(a, 'this action');
    if (issue !== null) ctx.addIssue({ code: 'custom', path: ['payload'], message: issue });
  });

const EnrolImport = z.strictObject({
  type: z.literal('enrol_in_promo'),
  promo: slug,
  email: z.string().max(500).default(DEFAULT_EMAIL_TEMPLATE),
  reference: z.string().max(500).default(DEFAULT_REFERENCE_TEMPLATE),
});

export const SequenceImport = z.strictObject({
  key: identifier.describe('Your id of the sequence: re-importing a key finds the same sequence.'),
  name: z.string().trim().min(1).max(255),
  status: z.enum(['active', 'paused']).default('active'),
  actions: z.array(z.discriminatedUnion('type', [SendWebhookImport, EnrolImport])).max(50).default([]),
  triggers: z
    .array(
      z.strictObject({
        key: identifier,
        name: z.string().trim().min(1).max(255),
        enabled: z.boolean().default(true),
        event_type: z
          .enum(WEBHOOK_EVENT_TYPES)
          .optional()
          .describe('Makes it an event trigger: the sequence starts on each event of this type (no catch URL); left out, a webhook trigger with a catch URL.'),
      }),
    )
    .max(50)
    .default([]),
});

const TierImport = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    price: minorUnits('price').nullable().default(null).describe('Minor units.'),
    discount_percent: z.number().gt(0).max(100).nullable().default(null),
    until: unix.nullable().default(null),
    max_participants: z.number().int().min(1).nullable().default(null),
  })
  .refine((t) => (t.price === null) !== (t.discount_percent === null), { message: 'Give either price or discount_percent.' });

export const PromoImport = z
  .strictObject({
    slug,
    name: z.string().trim().min(1).max(255),
    starts_at: unix,
    ends_at: unix,
    tiers: z.array(TierImport).min(1).max(50),
    offers: z
      .array(slug)
      .min(1)
      .max(100)
      .nullable()
      .default(null)
      .describe('Slugs of the offers the promo prices; left out, every offer of the organization (discount tiers only).'),
  })
  .refine((p) => p.ends_at > p.starts_at, { path: ['ends_at'], message: 'ends_at must be after starts_at.' })
  .refine((p) => p.offers !== null || p.tiers.every((t) => t.price === null), { path: ['offers'], message: FIXED_PRICE_NEEDS_OFFERS });

type SequenceImportValue = z.infer<typeof SequenceImport>;

export type SequenceImportResult = {
  key: string;
  sequence_id: number;
  created: boolean;
  changed: boolean;
  /** `catch_path` is null for an event trigger, which `event_type` names. */
  triggers: Array<{ key: string; trigger_id: number; created: boolean; catch_path: string | null; event_type: string | null }>;
};

function duplicateIssues(values: string[], path: (i: number) => string, what: string): ImportIssue[] {
  const seen = new Set<string>();
  return values.flatMap((v, i) => (seen.has(v) ? [{ path: path(i), message: `${what} must be unique in the file.` }] : (seen.add(v), [])));
}

const PROMO_HINTS: Record<string, string> = {
  promo_slug_taken: 'Promo slugs are unique across organizations: give the promo another slug.',
};

/** Promos, by slug (global, since the public route names them alone). Re-importing a slug updates its name, dates, tiers and offers. */
export const promosSection = importSection({
  name: 'promos',
  schema: z.array(PromoImport).max(1000),
  check: (promos) => duplicateIssues(promos.map((p) => p.slug), (i) => filePath(['promos', i, 'slug']), 'Promo slugs'),
  apply: (ctx, promos) =>
    applyEach('promos', promos, (p) => ({ label: `Promo ${p.slug}`, field: 'slug' }), PROMO_HINTS, async (p) => {
      const existing = await ctx.command.store.readStream(`promo-${p.slug}`);
      const input = { organizationId: ctx.organizationId, slug: p.slug, name: p.name, startsAt: p.starts_at, endsAt: p.ends_at, tiers: p.tiers, offers: p.offers };
      if (existing.length > 0) {
        const owner = (existing[0]!.data as { organization_id: string }).organization_id;
        if (owner !== ctx.organizationId) throw conflict('promo_slug_taken', `The promo slug '${p.slug}' is taken.`);
        const { changed } = await updatePromo(ctx.command, input);
        return { slug: p.slug, created: false, changed };
      }
      await createPromo(ctx.command, input);
      return { slug: p.slug, created: true, changed: true };
    }),
  describe: (results: Array<{ slug: string; created: boolean; changed: boolean }>) =>
    results.map((r) => `promo ${r.slug} ${r.created ? 'created' : r.changed ? 'updated' : 'unchanged'}`),
});

/**
 * Sequences with their actions and webhook triggers, by key. Re-importing a key updates the
 * sequence's name, status and actions (workflows already started keep the actions they started
 * with), adds missing triggers and sets `enabled`; catch URLs never change on import.
 */
export const sequencesSection = importSection({
  name: 'sequences',
  schema: z.array(SequenceImport).max(1000),
  check: (sequences: SequenceImportValue[]) => [
    ...duplicateIssues(sequences.map((s) => s.key), (i) => filePath(['sequences', i, 'key']), 'Sequence keys'),
    ...sequences.flatMap((s, i) => duplicateIssues(s.triggers.map((t) => t.key), (j) => filePath(['sequences', i, 'triggers', j, 'key']), 'Trigger keys')),
  ],
  prepare: backfillAutomationKeyClaims,
  apply: (ctx, sequences) =>
    applyEach('sequences', sequences, (s) => ({ label: `Sequence ${s.key}`, field: 'key' }), {}, async (s): Promise<SequenceImportResult> => {
      // Found by its key claim and decided on its own stream: the read models may lag or be stopped.
      const id = await claimSequenceKey(ctx.command, ctx.organizationId, s.key);
      const existing = await loadSequence(ctx.command, id);
      const actions: ActionInput[] = sealActionSecrets(ctx.sendWebhookSecrets, s.actions, existing?.actions ?? []);
      const sequence = existing
        ? { id, route_key: existing.routeKey, created: false }
        : { ...(await createSequence(ctx.command, { id, organizationId: ctx.organizationId, key: s.key, name: s.name, status: s.status, actions })), created: true };
      const changed = existing ? (await updateSequence(ctx.command, id, { name: s.name, status: s.status, actions })).changed : true;
      const triggers: SequenceImportResult['triggers'] = [];
      for (const t of s.triggers) {
        const triggerId = await claimTriggerKey(ctx.command, ctx.organizationId, id, t.key);
        const found = await loadTrigger(ctx.command, triggerId);
        if (found.status !== 'none' && (found.eventType ?? null) !== (t.event_type ?? null)) {
          throw conflict('trigger_kind_changed', `Trigger ${t.key} exists as ${found.eventType ? `an event trigger on ${found.eventType}` : 'a webhook trigger'}: a trigger's kind and event type cannot change; give it another key.`);
        }
        if (found.status !== 'none' && found.enabled !== t.enabled) await setTriggerEnabled(ctx.command, triggerId, t.enabled);
        const ensured =
          found.status !== 'none'
            ? { id: triggerId, route_key: found.routeKey, created: false }
            : {
                ...(await createTrigger(ctx.command, { id: triggerId, organizationId: ctx.organizationId, sequenceId: id, key: t.key, name: t.name, enabled: t.enabled, ...(t.event_type ? { eventType: t.event_type } : {}) })),
                created: true,
              };
        triggers.push({
          key: t.key,
          trigger_id: ensured.id,
          created: ensured.created,
          catch_path: t.event_type ? null : `/hooks/catch/${sequence.route_key}/${ensured.route_key}`,
          event_type: t.event_type ?? null,
        });
      }
      return { key: s.key, sequence_id: id, created: sequence.created, changed, triggers };
    }),
  describe: (results: SequenceImportResult[]) =>
    results.flatMap((r) => [
      `sequence ${r.key} (${r.sequence_id}) ${r.created ? 'created' : r.changed ? 'updated' : 'unchanged'}`,
      ...r.triggers.map((t) => `  trigger ${t.key} (${t.trigger_id}) ${t.created ? 'created' : 'already there'}: ${t.catch_path ?? `on ${t.event_type}`}`),
    ]),
});
