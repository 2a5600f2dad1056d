import { fold } from '../../platform/domain/index.ts';
import { handleCommand, toNewEvent, type CommandContext } from '../../platform/es/index.ts';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../../platform/eventStore/index.ts';
import {
  benefitGrantStream,
  licenseKeyDecider,
  licenseKeyHashStream,
  licenseKeyStream,
  type Activation,
  type BenefitGrantedData,
  type LicenseKeyBenefitProperties,
  type LicenseKeyEvent,
  type LicenseKeyState,
} from './domain/licenseKey.ts';
import { loadProductBenefits } from '../benefits/index.ts';
import { displayKey, generateLicenseKey, licenseKeyBox, licenseKeyHash, licenseKeyIdFor, newInstanceId } from './licenseKeyCodec.ts';

export type IssuedKey = Extract<LicenseKeyState, { status: 'issued' }>;

const DAY = 86_400;

export async function loadLicenseKey(store: EventStore, id: string): Promise<IssuedKey | null> {
  const state = fold(licenseKeyDecider, (await store.readStream(licenseKeyStream(id))) as unknown as LicenseKeyEvent[]);
  return state.status === 'issued' ? state : null;
}

/*
 * Per store, the ids of keys recently looked up by hash. A claim never changes once made, so a
 * hit spares the public API's hottest route one read; misses are not kept (a key may be issued
 * a moment later). Cleared whole when full: a few thousand apps validating keep it warm.
 */
const claims = new WeakMap<EventStore, Map<string, string>>();
const CLAIMS_MAX = 10_000;

/** The key an app sent, through its hash's claim; a claim whose key was never issued finds nothing. */
export async function findLicenseKeyByKey(store: EventStore, key: string): Promise<IssuedKey | null> {
  const hash = licenseKeyHash(key);
  let known = claims.get(store);
  if (!known) claims.set(store, (known = new Map()));
  let id = known.get(hash);
  if (id === undefined) {
    const [claim] = await store.readStream(licenseKeyHashStream(hash));
    id = (claim?.data as { license_key_id?: string } | undefined)?.license_key_id;
    if (!id) return null;
    if (known.size >= CLAIMS_MAX) known.clear();
    known.set(hash, id);
  }
  const state = await loadLicenseKey(store, id);
  return state && state.key.key_hash === hash ? state : null;
}

/** The benefit as its product's stream says now: null when deleted or not a license key benefit. */
export async function loadLicenseKeyBenefit(store: EventStore, productId: string, benefitId: string): Promise<LicenseKeyBenefitProperties | null> {
  const benefit = (await loadProductBenefits({ store }, productId)).benefits[benefitId];
  return benefit && !benefit.deleted && benefit.type === 'license_key' ? (benefit.properties as LicenseKeyBenefitProperties) : null;
}

/**
 * Issues the grant's key, or gives the same key back when the grant was revoked and is granted
 * again; nothing when it is issued and granted. A fresh key is made for each try: only the one
 * the stream takes is claimed. The claim of the hash comes after the key's stream, and is made
 * again on every grant, so a crash in between leaves nothing a re-run does not finish.
 */
export async function issueLicenseKey(
  ctx: CommandContext,
  dataKey: Uint8Array,
  grant: BenefitGrantedData,
  benefit: LicenseKeyBenefitProperties,
): Promise<IssuedKey> {
  const id = licenseKeyIdFor(grant.grant_id);
  const key = generateLicenseKey(benefit.prefix);
  const { state } = await handleCommand(ctx, licenseKeyStream(id), licenseKeyDecider, {
    type: 'Issue',
    data: {
      id,
      organization_id: grant.organization_id,
      mode: grant.mode,
      grant_id: grant.grant_id,
      benefit_id: grant.benefit_id,
      product_id: grant.product_id,
      customer_id: grant.customer_id,
      source: grant.source,
      key_hash: licenseKeyHash(key),
      sealed_key: licenseKeyBox(dataKey).seal(key),
      display_key: displayKey(key, benefit.prefix),
      activation_limit: benefit.activation_limit,
      expires_at: benefit.expires_after_days === null ? null : grant.granted_at + benefit.expires_after_days * DAY,
      issued_at: grant.granted_at,
    },
  });
  if (state.status !== 'issued') throw new Error(`license key ${id} was not issued`);
  await claimHash(ctx, state.key.key_hash, id);
  return state;
}

async function claimHash(ctx: CommandContext, hash: string, id: string): Promise<void> {
  const stream = licenseKeyHashStream(hash);
  try {
    await ctx.store.append(stream, [toNewEvent({ type: 'LicenseKeyHashClaimed', data: { license_key_id: id } }, ctx.metadata)], 'no_stream');
  } catch (error) {
    // Claimed already: by this key on an earlier run (140 random bits do not collide).
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
  }
}

/** The grant's key is disabled by its revocation; a grant that had no key (a file benefit) has nothing to do. */
export async function revokeLicenseKey(ctx: CommandContext, grantId: string, at: number): Promise<void> {
  const stream = licenseKeyStream(licenseKeyIdFor(grantId));
  const known = await ctx.store.readStream(stream);
  if (known.length === 0) return;
  await handleCommand(ctx, stream, licenseKeyDecider, { type: 'Revoke', grant_id: grantId, at }, { known });
}

/** The organization's key, or null (another organization's key is none of its business). */
export async function ownLicenseKey(store: EventStore, organizationId: string, id: string): Promise<IssuedKey | null> {
  if (!/^lk_[0-9a-f]{24}$/.test(id)) return null;
  const state = await loadLicenseKey(store, id);
  return state && state.key.organization_id === organizationId ? state : null;
}

export async function setLicenseKeyDisabled(ctx: CommandContext, id: string, disabled: boolean): Promise<IssuedKey> {
  const { state } = await handleCommand(ctx, licenseKeyStream(id), licenseKeyDecider, { type: disabled ? 'Disable' : 'Enable', at: ctx.metadata.occurred_at });
  return state as IssuedKey;
}

export async function activateLicenseKey(ctx: CommandContext, id: string, name: string): Promise<{ state: IssuedKey; instance: Activation }> {
  const at = ctx.metadata.occurred_at;
  const instance: Activation = { id: newInstanceId(), name, created_at: at };
  const { state } = await handleCommand(ctx, licenseKeyStream(id), licenseKeyDecider, { type: 'Activate', instance, at });
  return { state: state as IssuedKey, instance };
}

export async function deactivateLicenseKey(ctx: CommandContext, id: string, instanceId: string): Promise<IssuedKey> {
  const { state } = await handleCommand(ctx, licenseKeyStream(id), licenseKeyDecider, { type: 'Deactivate', instance_id: instanceId, at: ctx.metadata.occurred_at });
  return state as IssuedKey;
}

/** The grant of a BenefitRevoked event (its stream names it). */
export const grantIdOfStream = (recorded: RecordedEvent) => recorded.stream.slice(benefitGrantStream('').length);
