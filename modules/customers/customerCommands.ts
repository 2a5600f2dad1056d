import { createHash, randomBytes } from 'node:crypto';
import { fold, notFound } from '../../platform/domain/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { personalSubject, type PersonalDataVault } from '../../platform/privacy/index.ts';
import {
  customerDecider,
  customerKeyDecider,
  customerKeys,
  customerKeyStream,
  customerStream,
  redactedEmail,
  type CustomerMode,
  type CustomerState,
  type CustomerCreatedData,
} from './domain/customer.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 14 of 62 symbols (about 83 bits): ids are handles the seller sees, not secrets, yet not guessable across organizations. */
export function newCustomerId(): string {
  const bytes = randomBytes(14);
  let id = 'cus_';
  for (const b of bytes) id += ALPHABET[b % ALPHABET.length];
  return id;
}

/** The claim stream's hash of a key in an organization (its name carries no readable email). */
export const keyHash = (organizationId: string, key: string) => createHash('sha256').update(`${organizationId}|${key}`).digest('hex');

export type EnsureCustomerInput = {
  organizationId: string;
  mode: CustomerMode;
  userId?: string | null;
  email?: string | null;
  name?: string | null;
  /** When they became a customer, if not now: the backfill dates them by their first purchase. */
  createdAt?: number;
};

/**
 * The customer of a person in an organization, made on first sight: the claim on their key (user
 * id, else normalized email) names one customer whoever asks first, so two purchases at once of
 * the same person agree. Idempotent and decided on streams only: the answer holds in the same
 * request, with no read model to wait for. Null when the input names nobody (no user id, no email).
 */
export async function ensureCustomer(ctx: CommandContext, input: EnsureCustomerInput): Promise<{ id: string; created: boolean } | null> {
  const keys = customerKeys(input);
  if (!keys) return null;
  const email = input.email?.trim() || null;
  const candidate = newCustomerId();
  const claim = await handleCommand(ctx, customerKeyStream(input.organizationId, keyHash(input.organizationId, keys.primary)), customerKeyDecider, {
    type: 'ClaimCustomerKey',
    customerId: candidate,
    organizationId: input.organizationId,
    now: ctx.metadata.occurred_at,
  });
  const id = claim.state.holder!;
  // Also after a crash between the claim and this append: whoever reads the claim next makes it.
  const created = await handleCommand(ctx, customerStream(id), customerDecider, {
    type: 'CreateCustomer',
    id,
    organizationId: input.organizationId,
    mode: input.mode,
    email,
    name: input.name ?? null,
    userId: input.userId ?? null,
    now: input.createdAt ?? ctx.metadata.occurred_at,
  });
  if (created.events.length > 0 && keys.secondary) {
    // A guest purchase later with the signed identity's email finds the same customer; an email
    // claimed by an earlier guest customer stays theirs.
    await handleCommand(ctx, customerKeyStream(input.organizationId, keyHash(input.organizationId, keys.secondary)), customerKeyDecider, {
      type: 'ClaimCustomerKey',
      customerId: id,
      organizationId: input.organizationId,
      now: ctx.metadata.occurred_at,
    });
  }
  return { id, created: created.events.length > 0 };
}

/**
 * Erases the customer on request (GDPR): releases their key claims first, so a new purchase with
 * that email makes a new customer, then records CustomerRedacted. Safe to run again after an
 * interruption: a released claim and a redacted customer decide nothing.
 */
export async function redactCustomer(ctx: CommandContext, id: string): Promise<{ redacted: boolean; position: number | null }> {
  const state = await loadCustomer(ctx, id);
  if (state.status === 'none') throw notFound('Customer');
  const keys = state.status === 'active' ? customerKeys({ mode: state.mode, userId: state.user_id, email: state.email }) : null;
  const hashes = keys ? [keys.primary, ...(keys.secondary ? [keys.secondary] : [])].map((k) => keyHash(state.organization_id, k)) : [];
  let position: number | null = null;
  for (const hash of hashes) {
    const released = await handleCommand(ctx, customerKeyStream(state.organization_id, hash), customerKeyDecider, {
      type: 'ReleaseCustomerKey',
      customerId: id,
      now: ctx.metadata.occurred_at,
    });
    position = released.position ?? position;
  }
  const result = await handleCommand(ctx, customerStream(id), customerDecider, { type: 'RedactCustomer', releasedKeys: hashes, now: ctx.metadata.occurred_at });
  return { redacted: result.events.length > 0, position: result.position ?? position };
}

/** The customer's details as they were made, read from the log (their key still lives) or null once shredded. */
export async function customerAsCreated(ctx: Pick<CommandContext, 'store'>, id: string): Promise<{ organizationId: string; email: string | null; name: string | null; userId: string | null } | null> {
  const created = (await ctx.store.readEvent(customerStream(id), 0)) as { type: string; data: CustomerCreatedData } | null;
  if (!created || created.type !== 'CustomerCreated') return null;
  const d = created.data;
  // The placeholder: the key that sealed them is destroyed already.
  if (d.email === redactedEmail(id)) return null;
  return { organizationId: d.organization_id, email: d.email, name: d.name, userId: d.user_id };
}

/**
 * Destroys the keys that sealed the customer's personal fields in the log (their email's and
 * their signed user id's), so those events read as redacted from now on, here and in any copy
 * of the log. Last in an erasure: the commands before it decide on the plain values.
 */
export async function shredCustomer(vault: PersonalDataVault, id: string, created: { organizationId: string; email: string | null; userId: string | null }): Promise<number> {
  let destroyed = 0;
  for (const subject of [personalSubject(created.organizationId, { email: created.email }), personalSubject(created.organizationId, { userId: created.userId })]) {
    if (subject) destroyed += await vault.destroy(created.organizationId, subject, id);
  }
  return destroyed;
}

export async function loadCustomer(ctx: Pick<CommandContext, 'store'>, id: string): Promise<CustomerState> {
  return fold(customerDecider, (await ctx.store.readStream(customerStream(id))) as never);
}
