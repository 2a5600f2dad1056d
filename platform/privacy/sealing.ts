import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { PersonalDataVault } from './personalDataVault.ts';
import { personalSubject } from './personalDataVault.ts';

/** A personal value as the log holds it: `v1.<key id>.<iv>.<ciphertext>.<tag>`, base64url parts. */
export type SealedValue = { $sealed: string };

const VERSION = 'v1';

/**
 * A sealed value that cannot be opened: altered, cut, or naming a key the vault never had. Not
 * the request's fault and not one a retry mends; the message names no personal data.
 */
export class SealedDataError extends Error {
  override readonly name = 'SealedDataError';
}

export const isSealed = (value: unknown): value is SealedValue =>
  typeof value === 'object' && value !== null && typeof (value as { $sealed?: unknown }).$sealed === 'string';

/** `field` is bound into the tag (as additional data): a value moved to another field does not open. */
export function sealValue(keyId: string, key: Buffer, field: string, value: unknown): SealedValue {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${VERSION}.${keyId}.${field}`, 'utf8'));
  const ct = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return { $sealed: [VERSION, keyId, iv.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.') };
}

export function sealedKeyId(sealed: SealedValue): string {
  const parts = sealed.$sealed.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION || !parts[1]) throw new SealedDataError('A sealed personal value is malformed.');
  return parts[1];
}

export function openValue(key: Buffer, field: string, sealed: SealedValue): unknown {
  const [version, keyId, iv, ct, tag] = sealed.$sealed.split('.');
  if (version !== VERSION || !keyId || !iv || ct === undefined || !tag) throw new SealedDataError('A sealed personal value is malformed.');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`${VERSION}.${keyId}.${field}`, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8'));
  } catch (error) {
    throw new SealedDataError(`A sealed personal value (key ${keyId}, field ${field}) does not open: it was altered or damaged.`, { cause: error });
  }
}

/**
 * Where an event type holds a person: the object at `at` (`[]`: the event's data), with the
 * person's email, name and signed user id under these names. The email (else the user id)
 * decides whose key seals them.
 */
export type PersonFields = {
  at: readonly string[];
  email: string;
  name?: string;
  userId?: string;
  /** Other fields of the object sealed with the person's key (a message's text), and what each reads as once erased. */
  also?: Readonly<Record<string, unknown>>;
};
/** A string field holding JSON (a webhook's payload as it is sent): the persons inside it, sealed in place. */
export type JsonPersonFields = { at: readonly string[]; json: string; persons: readonly PersonFields[] };
export type PersonalFieldTable = Readonly<Record<string, readonly (PersonFields | JsonPersonFields)[]>>;

const isJson = (entry: PersonFields | JsonPersonFields): entry is JsonPersonFields => 'json' in entry;

/** What an erased person's email reads as (the customers module's placeholder). */
export const redactedEmailOf = (customerId: string | null) => (customerId ? `redacted+${customerId}@invalid` : 'redacted@invalid');
const PLACEHOLDER_EMAIL = /^redacted(\+[^@]*)?@invalid$/;

type Data = Record<string, unknown>;

function objectAt(data: unknown, at: readonly string[]): Data | null {
  let node: unknown = data;
  for (const step of at) node = typeof node === 'object' && node !== null ? (node as Data)[step] : undefined;
  return typeof node === 'object' && node !== null && !Array.isArray(node) ? (node as Data) : null;
}

/** A copy of `data` with the object at `at` replaced by `replace(object)`; the input is left as it was. */
function replaceAt(data: unknown, at: readonly string[], replace: (object: Data) => Data): unknown {
  if (at.length === 0) return replace(data as Data);
  const [step, ...rest] = at;
  const parent = data as Data;
  return { ...parent, [step!]: replaceAt(parent[step!], rest, replace) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** [role, field]: the role is bound into the seal and decides the placeholder. */
const fieldsOf = (person: PersonFields): [string, string][] => [
  ...[['email', person.email], ['name', person.name], ['user_id', person.userId]].filter((f): f is [string, string] => f[1] !== undefined),
  ...Object.keys(person.also ?? {}).map((field): [string, string] => [`also:${field}`, field]),
];

function erasedValue(person: PersonFields, role: string, field: string, customerId: string | null): unknown {
  if (role === 'email') return redactedEmailOf(customerId);
  return role.startsWith('also:') ? (person.also?.[field] ?? null) : null;
}

/** The event's data with its persons' fields sealed; unchanged when the type names no person or the person has neither email nor user id. */
export async function sealEventData(vault: PersonalDataVault, table: PersonalFieldTable, type: string, data: unknown, organizationId: string | null): Promise<unknown> {
  const entries = table[type];
  if (!entries) return data;
  const org = organizationId ?? (typeof (data as Data | null)?.organization_id === 'string' ? ((data as Data).organization_id as string) : null);
  if (org === null) return data;
  let out = data;
  for (const entry of entries) {
    if (!isJson(entry)) {
      out = await sealPersons(vault, [entry], out, org);
      continue;
    }
    const object = objectAt(out, entry.at);
    const text = object?.[entry.json];
    const parsed = typeof text === 'string' ? parseJson(text) : undefined;
    // Not JSON: nothing the table can find a person in.
    if (parsed === undefined) continue;
    const sealed = await sealPersons(vault, entry.persons, parsed, org);
    if (sealed !== parsed) out = replaceAt(out, entry.at, (o) => ({ ...o, [entry.json]: JSON.stringify(sealed) }));
  }
  return out;
}

async function sealPersons(vault: PersonalDataVault, persons: readonly PersonFields[], data: unknown, org: string): Promise<unknown> {
  let out = data;
  for (const person of persons) {
    const object = objectAt(out, person.at);
    if (!object) continue;
    const email = typeof object[person.email] === 'string' ? (object[person.email] as string) : null;
    const userId = person.userId && typeof object[person.userId] === 'string' ? (object[person.userId] as string) : null;
    // The erasure's own placeholders are nobody's data.
    if (email !== null && PLACEHOLDER_EMAIL.test(email)) continue;
    const subject = personalSubject(org, { email, userId });
    if (subject === null) continue;
    const { id, key } = await vault.keyFor(org, subject);
    out = replaceAt(out, person.at, (o) => {
      const sealed = { ...o };
      for (const [role, name] of fieldsOf(person)) {
        if (sealed[name] !== null && sealed[name] !== undefined && !isSealed(sealed[name])) sealed[name] = sealValue(id, key, role, sealed[name]);
      }
      return sealed;
    });
  }
  return out;
}

/** The event's data with its sealed fields opened: as sealed while the key lives, the placeholder once destroyed. */
export async function openEventData(vault: PersonalDataVault, table: PersonalFieldTable, type: string, data: unknown): Promise<unknown> {
  const entries = table[type];
  if (!entries) return data;
  let out = data;
  for (const entry of entries) {
    if (!isJson(entry)) {
      out = await openPersons(vault, [entry], out);
      continue;
    }
    const object = objectAt(out, entry.at);
    const text = object?.[entry.json];
    // Most payloads name nobody: not parsed at all.
    if (typeof text !== 'string' || !text.includes('"$sealed"')) continue;
    const parsed = parseJson(text);
    if (parsed === undefined) throw new SealedDataError('A payload holding sealed personal values is not JSON: it was altered or damaged.');
    const opened = await openPersons(vault, entry.persons, parsed);
    out = replaceAt(out, entry.at, (o) => ({ ...o, [entry.json]: JSON.stringify(opened) }));
  }
  return out;
}

async function openPersons(vault: PersonalDataVault, persons: readonly PersonFields[], data: unknown): Promise<unknown> {
  let out = data;
  for (const person of persons) {
    const object = objectAt(out, person.at);
    if (!object || !fieldsOf(person).some(([, name]) => isSealed(object[name]))) continue;
    const opened: Data = { ...object };
    for (const [role, name] of fieldsOf(person)) {
      const value = object[name];
      if (!isSealed(value)) continue;
      const keyId = sealedKeyId(value);
      const found = await vault.lookup(keyId);
      if (!found) throw new SealedDataError(`A sealed personal value names key ${keyId}, which the vault does not hold.`);
      opened[name] = found.status === 'live' ? openValue(found.key, role, value) : erasedValue(person, role, name, found.redactedAs);
    }
    out = replaceAt(out, person.at, () => opened);
  }
  return out;
}
