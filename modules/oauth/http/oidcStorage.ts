import { hash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { EventStore } from '../../../platform/eventStore/index.ts';
import type { ReadStore } from '../../../platform/readStore/index.ts';
import { loadOAuthApp } from '../oauthCommands.ts';

/**
 * The authorization server's short-lived records (codes, tokens, sessions, interactions, grants): not
 * read models, but kept in the read store and written here directly; the grant's stream is their audit trail.
 */
export const OAUTH_RECORDS = 'oauth_records';

type RecordDoc = {
  id: string;
  model: string;
  grant_id: string | null;
  /** SHA-256 of a session's uid (not a secret, but looked up by): findByUid. */
  uid_hash?: string | null;
  /** Unix milliseconds after which the record counts as gone. */
  expires_at: number | null;
  payload: Omit<AdapterPayload, 'jti'>;
};

const sha256 = (value: string) => hash('sha256', value, 'hex');

/**
 * A record's key is the SHA-256 of its id: for tokens, codes, sessions and interactions the id IS
 * the secret (an opaque token is its own id), so a copy of the store yields no usable token. The
 * id is left out of the stored payload and put back from the lookup's own argument.
 */
const keyOf = (model: string, id: string) => `${model}:${sha256(id)}`;

/** An interaction carries its session's cookie value (the session's id): not kept. */
function storable(model: string, payload: AdapterPayload): Omit<AdapterPayload, 'jti'> {
  const { jti: _jti, ...rest } = payload;
  if (model === 'Interaction' && rest.session && 'cookie' in rest.session) {
    const { cookie: _cookie, ...session } = rest.session as Record<string, unknown>;
    return { ...rest, session: session as AdapterPayload['session'] };
  }
  return rest;
}

/** Client metadata from the app's stream: the secret's SHA-256 stands in for the secret (see compareClientSecret). */
async function clientMetadata(store: EventStore, clientId: string): Promise<AdapterPayload | undefined> {
  const app = await loadOAuthApp(store, clientId);
  if (app.status !== 'active') return undefined;
  return {
    client_id: app.clientId,
    client_name: app.name,
    redirect_uris: app.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(app.public || app.secretHash === null
      ? { token_endpoint_auth_method: 'none' }
      : { token_endpoint_auth_method: 'client_secret_basic', client_secret: app.secretHash }),
  };
}

export function oidcAdapterClass(readStore: ReadStore, store: EventStore, clock: () => number): new (name: string) => Adapter {
  let indexed: Promise<void> | null = null;
  const ready = () =>
    (indexed ??= ensureRecordIndexes(readStore));

  return class ReadStoreAdapter implements Adapter {
    constructor(private readonly model: string) {}

    private async load(key: string, id: string): Promise<AdapterPayload | undefined> {
      await ready();
      const doc = await readStore.get<RecordDoc>(OAUTH_RECORDS, key);
      if (!doc || doc.model !== this.model) return undefined;
      if (doc.expires_at !== null && doc.expires_at <= clock()) {
        await readStore.delete(OAUTH_RECORDS, key);
        return undefined;
      }
      return { ...doc.payload, jti: id } as AdapterPayload;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      if (this.model === 'Client') return; // apps are registered through their commands only
      await ready();
      const doc: RecordDoc = {
        id: keyOf(this.model, id),
        model: this.model,
        grant_id: this.model === 'Grant' ? id : (payload.grantId ?? null),
        uid_hash: typeof payload.uid === 'string' ? sha256(payload.uid) : null,
        expires_at: expiresIn ? clock() + expiresIn * 1000 : null,
        payload: storable(this.model, payload),
      };
      await readStore.upsert(OAUTH_RECORDS, doc);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return clientMetadata(store, id);
      return this.load(keyOf(this.model, id), id);
    }

    /**
     * A session by its uid: oidc-provider checks that an interaction's session still stands and
     * has the same account. Its id (the cookie's value) is stored only hashed, so what comes back
     * carries a stand-in id that names no record: it serves reads, and a save or destroy through
     * it touches nothing real.
     */
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      await ready();
      const [doc] = await readStore.find<RecordDoc>(OAUTH_RECORDS, { filter: { uid_hash: sha256(uid) }, limit: 1 });
      if (!doc || doc.model !== this.model) return undefined;
      return this.load(doc.id, `uid:${uid}`);
    }

    async findByUserCode(): Promise<undefined> {
      return undefined; // the device flow is not enabled
    }

    async consume(id: string): Promise<void> {
      await ready();
      const key = keyOf(this.model, id);
      const doc = await readStore.get<RecordDoc>(OAUTH_RECORDS, key);
      if (doc) await readStore.upsert(OAUTH_RECORDS, { ...doc, payload: { ...doc.payload, consumed: Math.floor(clock() / 1000) } });
    }

    async destroy(id: string): Promise<void> {
      await readStore.delete(OAUTH_RECORDS, keyOf(this.model, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await ready();
      const docs = await readStore.find<RecordDoc>(OAUTH_RECORDS, { filter: { grant_id: grantId } });
      for (const doc of docs) if (doc.model === this.model) await readStore.delete(OAUTH_RECORDS, doc.id);
    }
  };
}

const ensureRecordIndexes = (readStore: ReadStore) =>
  Promise.all(['grant_id', 'uid_hash', 'expires_at'].map((field) => readStore.ensureIndex(OAUTH_RECORDS, [field]))).then(() => undefined);

/**
 * Deletes up to `limit` records expired at `now` (Unix ms), oldest first; returns how many. Most expired
 * records are never looked up again (and so deleted on lookup): without this they pile up.
 */
export async function deleteExpiredRecords(readStore: ReadStore, now: number, limit: number): Promise<number> {
  await ensureRecordIndexes(readStore);
  const expired = await readStore.find<RecordDoc>(OAUTH_RECORDS, { filter: { expires_at: { $lte: now } }, sort: [['expires_at', 1]], limit });
  for (const doc of expired) await readStore.delete(OAUTH_RECORDS, doc.id);
  return expired.length;
}

/** Every record of a grant, whatever its model: a revoked connection leaves no token behind. */
export async function deleteGrantRecords(readStore: ReadStore, grantId: string): Promise<void> {
  const docs = await readStore.find<RecordDoc>(OAUTH_RECORDS, { filter: { grant_id: grantId } });
  for (const doc of docs) await readStore.delete(OAUTH_RECORDS, doc.id);
}

/** The access token's record as the bearer check reads it: by the token's hash, never the token. */
export async function findAccessToken(
  readStore: ReadStore,
  token: string,
  now: number,
): Promise<{ grantId: string; clientId: string; accountId: string; scopes: string[] } | null> {
  if (token.length > 200) return null;
  const doc = await readStore.get<RecordDoc>(OAUTH_RECORDS, keyOf('AccessToken', token));
  if (!doc || doc.model !== 'AccessToken' || !doc.grant_id) return null;
  const p = doc.payload;
  if ((doc.expires_at !== null && doc.expires_at <= now) || (typeof p.exp === 'number' && p.exp * 1000 <= now)) return null;
  if (typeof p.clientId !== 'string' || typeof p.accountId !== 'string') return null;
  return { grantId: doc.grant_id, clientId: p.clientId, accountId: p.accountId, scopes: String(p.scope ?? '').split(' ').filter(Boolean) };
}
