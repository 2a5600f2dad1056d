import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licenseKeysForGrants, licenseKeyIdFor, licenseKeyStream, normalizeLicenseKey } from '../../modules/licenses/index.ts';
import { LICENSE_KEY_ISSUER_CHECKPOINT, licenseKeyIssuerJob } from '../../modules/licenses/jobs/licenseKeyIssuer.ts';
import { issueLicenseKey, loadLicenseKeyBenefit } from '../../modules/licenses/licenseCommands.ts';
import type { ReadStore } from '../../platform/readStore/index.ts';
import { licenseKeyHash } from '../../modules/licenses/licenseKeyCodec.ts';
import { licenseKeyHashStream } from '../../modules/licenses/domain/licenseKey.ts';
import type { BenefitGrantedData } from '../../modules/benefits/domain/benefitTypes.ts';
import { benefitGrantStream } from '../../modules/benefits/domain/benefitTypes.ts';
import { manualClock, startTestServer, type ManualClock, type TestServer } from '../helpers/testServer.ts';
import { benefitEvents, keyEvents, waitUntil } from './licenseFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const DAY_MS = 86_400_000;

/** License keys issued from grants, the public License API and the seller's routes, on a real SQLite file over HTTP. */
describe('license keys', () => {
  let server: TestServer;
  let clock: ManualClock;
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };
  let events: ReturnType<typeof benefitEvents>;

  beforeAll(async () => {
    clock = manualClock();
    server = await startTestServer({ clock });
    seller = await server.identity('Seller');
    other = await server.identity('Other');
    events = benefitEvents(server, seller.organizationId);
  });
  afterAll(() => server.close({ remove: true }));

  const post = async (path: string, body: unknown, init: { token?: string } = {}) => {
    const response = await server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...init });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const get = async (path: string, token: string) => {
    const response = await server.fetch(path, { token });
    return { status: response.status, body: (await response.json()) as Body };
  };

  /** A granted key, as the buyer's pages get it. */
  async function grantedKey(properties: Parameters<typeof events.createBenefit>[0] = {}) {
    const benefit = await events.createBenefit(properties);
    const grantId = await events.grant(benefit);
    await keyEvents(server, grantId);
    await server.settle();
    const [view] = await licenseKeysForGrants(server.services, seller.organizationId, [grantId]);
    return { benefit, grantId, view: view!, key: view!.key };
  }

  it('issues one key per grant: prefix, seven groups of Crockford base32 (140 bits), and again nothing on a re-run', async () => {
    const { benefit, grantId, view, key } = await grantedKey();
    expect(key).toMatch(/^APP(-[0-9A-HJKMNP-TV-Z]{4}){7}$/);
    expect(view).toEqual({ id: licenseKeyIdFor(grantId), grant_id: grantId, key, status: 'inactive', activation_limit: 2, activation_usage: 0, expires_at: null });

    // The subscriber run again on the same grant (at least once): same key, nothing appended.
    const [granted] = await server.services.store.readStream(benefitGrantStream(grantId));
    const props = await loadLicenseKeyBenefit(server.services.store, benefit.productId, benefit.benefitId);
    const again = await issueLicenseKey(server.cliContext(seller.organizationId), server.services.secrets.data, granted!.data as BenefitGrantedData, props!);
    expect(again.key.key_hash).toBe(licenseKeyHash(key));
    expect(await server.services.store.readStream(licenseKeyStream(view.id))).toHaveLength(1);

    // The whole subscriber run again from the log's start (its checkpoint lost): nothing new either.
    const rerun = `${LICENSE_KEY_ISSUER_CHECKPOINT}:rerun`;
    const renamed = (name: string) => (name === LICENSE_KEY_ISSUER_CHECKPOINT ? rerun : name);
    const readStore = new Proxy(server.services.readStore, {
      get(target, prop, receiver) {
        if (prop === 'readCheckpoint') return (name: string) => target.readCheckpoint(renamed(name));
        if (prop === 'commit') return (name: string, ...rest: [never, never]) => target.commit(renamed(name), ...rest);
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as ReadStore;
    // The last grant event of the log (this one): a checkpoint stops at the last event it follows.
    const head = granted!.position;
    const job = await licenseKeyIssuerJob.start({ ...server.services, readStore }, { error: (o, m) => console.error(m, o), info: () => undefined });
    try {
      await waitUntil('the re-run past the grant', async () => ((await server.services.readStore.readCheckpoint(rerun)) ?? -1) >= head);
    } finally {
      await job.stop();
    }
    expect(await server.services.store.readStream(licenseKeyStream(view.id))).toHaveLength(1);
    expect(await server.services.store.readStream(licenseKeyHashStream(licenseKeyHash(key)))).toHaveLength(1);
    expect((await licenseKeysForGrants(server.services, seller.organizationId, [grantId]))[0]!.key).toBe(key);

    // Another grant, another key; a file grant none.
    const second = await grantedKey();
    expect(second.key).not.toBe(key);
    expect(await licenseKeysForGrants(server.services, other.organizationId, [grantId])).toEqual([]);
  });

  it('activates up to the limit, then answers 422 activation_limit_reached; a deactivation frees a slot', async () => {
    const { key } = await grantedKey({ activation_limit: 2 });
    const first = await post('/api/licenses/activate', { key, instance_name: 'Laptop' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      activated: true,
      error: null,
      instance: { id: expect.stringMatching(/^lki_/), name: 'Laptop', created_at: expect.any(Number) },
      license: { id: expect.stringMatching(/^lk_/), status: 'active', activation_limit: 2, activation_usage: 1, expires_at: null, product_id: expect.any(String), livemode: false },
    });
    // Typed loosely, as people do: lower case, spaces, Crockford's O for 0.
    const sloppy = key.toLowerCase().replace(/-/g, ' ').replace(/0/g, 'o');
    const second = await post('/api/licenses/activate', { license_key: sloppy, instance_name: 'Desktop' });
    expect(second.status).toBe(200);
    expect(second.body.license.activation_usage).toBe(2);

    const third = await post('/api/licenses/activate', { key, instance_name: 'Tablet' });
    expect(third.status).toBe(422);
    expect(third.body).toMatchObject({ activated: false, code: 'activation_limit_reached', error: expect.any(String), message: expect.any(String), license: { status: 'active', activation_usage: 2 } });

    const freed = await post('/api/licenses/deactivate', { key, instance_id: first.body.instance.id });
    expect(freed.status).toBe(200);
    expect(freed.body).toMatchObject({ deactivated: true, error: null, license: { activation_usage: 1 } });
    expect((await post('/api/licenses/activate', { key, instance_name: 'Tablet' })).status).toBe(200);

    const again = await post('/api/licenses/deactivate', { key, instance_id: first.body.instance.id });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ deactivated: false, code: 'instance_not_found' });
  });

  it('holds the limit under a burst of parallel activations', async () => {
    const { key } = await grantedKey({ activation_limit: 3 });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post('/api/licenses/activate', { key, instance_name: `Burst ${i}` })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.body.code).toBe('activation_limit_reached');
    expect((await post('/api/licenses/validate', { key })).body.license).toMatchObject({ activation_limit: 3, activation_usage: 3 });
  });

  it('validates with and without an instance, and an unknown key answers 404 alike', async () => {
    const { key } = await grantedKey();
    const bare = await post('/api/licenses/validate', { key });
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ valid: true, error: null, instance: null, license: { status: 'inactive', activation_usage: 0 }, token: expect.any(String) });

    const activated = await post('/api/licenses/activate', { key, instance_name: 'CI runner' });
    const withInstance = await post('/api/licenses/validate', { key, instance_id: activated.body.instance.id });
    expect(withInstance.body).toMatchObject({ valid: true, instance: { id: activated.body.instance.id, name: 'CI runner' }, license: { status: 'active' } });

    const otherInstance = await post('/api/licenses/validate', { key, instance_id: 'lki_nope' });
    expect(otherInstance.status).toBe(200);
    expect(otherInstance.body).toMatchObject({ valid: false, error: expect.stringContaining('instance'), instance: null });

    const unknown = await post('/api/licenses/validate', { key: 'APP-0000-0000-0000-0000-0000-0000-0000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ valid: false, code: 'license_key_not_found' });
  });

  it('expires after the benefit’s days, on the service clock', async () => {
    const { key } = await grantedKey({ expires_after_days: 30 });
    const before = await post('/api/licenses/validate', { key });
    expect(before.body).toMatchObject({ valid: true, license: { status: 'inactive', expires_at: expect.any(Number) } });
    clock.advance(31 * DAY_MS);
    try {
      const after = await post('/api/licenses/validate', { key });
      expect(after.body).toMatchObject({ valid: false, error: 'This license key has expired.', license: { status: 'expired' } });
      const activation = await post('/api/licenses/activate', { key, instance_name: 'Late' });
      expect(activation.status).toBe(422);
      expect(activation.body).toMatchObject({ activated: false, code: 'license_key_expired' });
      const listed = await get(`/api/license_keys?status=expired`, seller.token);
      expect(listed.body.data.map((k: Body) => k.expires_at)).toContain(before.body.license.expires_at);
    } finally {
      clock.advance(-31 * DAY_MS);
    }
  });

  it('is disabled by the seller and enabled again; disabled by a revocation and back, the same key, on a new grant', async () => {
    const { grantId, key, view, benefit } = await grantedKey();
    const disabled = await post(`/api/license_keys/${view.id}/disable`, {}, { token: seller.token });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ id: view.id, object: 'license_key', status: 'disabled', disabled_by_seller: true, revoked: false });
    expect((await post('/api/licenses/validate', { key })).body).toMatchObject({ valid: false, error: 'This license key is disabled.', license: { status: 'disabled' } });
    expect((await post('/api/licenses/activate', { key, instance_name: 'X' })).body).toMatchObject({ activated: false, code: 'license_key_disabled' });
    const enabled = await post(`/api/license_keys/${view.id}/enable`, {}, { token: seller.token });
    expect(enabled.body).toMatchObject({ status: 'inactive', disabled_by_seller: false });
    expect((await post('/api/licenses/validate', { key })).body.valid).toBe(true);

    await events.revoke(grantId);
    await keyEvents(server, grantId, 4);
    expect((await post('/api/licenses/validate', { key })).body).toMatchObject({ valid: false, license: { status: 'disabled' } });
    await server.settle();
    const refused = await post(`/api/license_keys/${view.id}/enable`, {}, { token: seller.token });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('grant_revoked');

    await events.grant(benefit, grantId);
    await keyEvents(server, grantId, 5);
    expect((await post('/api/licenses/validate', { key })).body).toMatchObject({ valid: true, license: { status: 'inactive' } });
    await server.settle();
    const [back] = await licenseKeysForGrants(server.services, seller.organizationId, [grantId]);
    expect(back!.key).toBe(key);
  });

  it('signs the validation as a compact JWS (EdDSA) that verifies against the JWKS, and not once tampered with', async () => {
    const { key, view } = await grantedKey();
    const answer = await post('/api/licenses/validate', { key });
    const jwks = createRemoteJWKSet(new URL(`${server.url}/api/licenses/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(answer.body.token, jwks, { algorithms: ['EdDSA'], currentDate: new Date(clock()) });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', kid: expect.any(String) });
    expect(payload).toMatchObject({ sub: view.id, valid: true, license: answer.body.license, instance: null });
    expect(payload.exp! - payload.iat!).toBe(7 * 86_400);

    const [header, body, signature] = (answer.body.token as string).split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, license: { ...payload.license as object, activation_limit: 1000 } })).toString('base64url');
    await expect(jwtVerify(`${header}.${forged}.${signature}`, jwks, { currentDate: new Date(clock()) })).rejects.toThrow();
    const flipped = signature!.slice(0, -2) + (signature!.endsWith('AA') ? 'BB' : 'AA');
    await expect(jwtVerify(`${header}.${body}.${flipped}`, jwks, { currentDate: new Date(clock()) })).rejects.toThrow();

    const keys = await get('/api/licenses/jwks.json', '');
    expect(keys.body.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: protectedHeader.kid, alg: 'EdDSA', use: 'sig' }]);
  });

  it('keeps each organization’s keys to itself on the seller’s routes', async () => {
    const { view, key } = await grantedKey();
    const own = await get(`/api/license_keys/${view.id}`, seller.token);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: view.id, key, display_key: `APP-…-${key.slice(-4)}`, activations: [] });
    expect((await get(`/api/license_keys/${view.id}`, other.token)).status).toBe(404);
    expect((await post(`/api/license_keys/${view.id}/disable`, {}, { token: other.token })).status).toBe(404);
    expect((await get('/api/license_keys', other.token)).body.data).toEqual([]);
    const listed = await get('/api/license_keys?status=inactive', seller.token);
    expect(listed.body.data.map((k: Body) => k.id)).toContain(view.id);
    expect(listed.body.data.every((k: Body) => k.key === undefined)).toBe(true);
    expect((await get(`/api/license_keys?customer=cus_nobody`, seller.token)).body.data).toEqual([]);
  });

  it('never writes a key in plain: not in the events, the read models, nor any file of the data directory', async () => {
    const { key, view } = await grantedKey();
    await post('/api/licenses/activate', { key, instance_name: 'Grep' });
    await post('/api/licenses/validate', { key });
    await server.settle();
    const files = readdirSync(server.dataDir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    const contents = files.map((f) => readFileSync(join(f.parentPath, f.name)));
    expect(files.map((f) => f.name)).toContain('commerce.db');
    const hash = licenseKeyHash(key);
    // The search itself works: the key's hash and id are there.
    expect(contents.some((c) => c.includes(hash))).toBe(true);
    expect(contents.some((c) => c.includes(view.id))).toBe(true);
    for (const needle of [key, normalizeLicenseKey(key), key.split('-').slice(1).join('')]) {
      expect(contents.filter((c) => c.includes(needle))).toHaveLength(0);
    }
  });

  it('answers hostile bodies with 4xx, never 500', async () => {
    const bodies: unknown[] = [
      {},
      { key: '' },
      { key: 42, instance_name: 'x' },
      { key: 'x'.repeat(10_000), instance_name: 'x' },
      { key: ['APP'], instance_id: { $gt: '' } },
      { key: 'APP-1', instance_name: '' },
      { key: '\u0000\ud800', instance_id: 'a' },
      { license_key: 'APP-1', instance_id: 'x'.repeat(500) },
      null,
      [],
    ];
    for (const path of ['/api/licenses/activate', '/api/licenses/validate', '/api/licenses/deactivate']) {
      for (const body of bodies) {
        const response = await post(path, body);
        expect(response.status, `${path} ${JSON.stringify(body)?.slice(0, 60)}`).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(response.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
      }
      const form = await server.fetch(path, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'key=x' });
      expect(form.status).toBeLessThan(500);
    }
  });

  it('opens CORS to any origin on the License API alone', async () => {
    const preflight = (path: string) => server.fetch(path, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    const open = await preflight('/api/licenses/validate');
    expect(open.status).toBe(204);
    expect(open.headers.get('access-control-allow-origin')).toBe('*');
    for (const path of ['/api/license_keys/lk_x/disable', '/manage/api/license_keys/lk_x/disable']) {
      expect((await preflight(path)).headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });

  it('waits for the read model after the seller’s write (the key is found at once)', async () => {
    const { view } = await grantedKey();
    await waitUntil('the key in the list', async () => (await get('/api/license_keys', seller.token)).body.data.some((k: Body) => k.id === view.id));
  });
});

describe('License API rate limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { LICENSE_RATE_LIMIT_PER_KEY: '3', LICENSE_RATE_LIMIT_PER_ADDRESS: '6' } });
  });
  afterAll(() => server.close({ remove: true }));

  it('answers 429 per key across routes, then per address', async () => {
    const me = await server.identity();
    const events = benefitEvents(server, me.organizationId);
    const grantId = await events.grant(await events.createBenefit());
    await keyEvents(server, grantId);
    await server.settle();
    const key = (await licenseKeysForGrants(server.services, me.organizationId, [grantId]))[0]!.key;
    const call = (path: string, body: unknown) => server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    expect((await call('/api/licenses/validate', { key })).status).toBe(200);
    expect((await call('/api/licenses/validate', { key })).status).toBe(200);
    expect((await call('/api/licenses/deactivate', { key, instance_id: 'lki_x' })).status).toBe(404);
    const limited = await call('/api/licenses/validate', { key });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ code: 'too_many_attempts' });

    // Other keys from the same address: the address's own limit (6 a minute on this route).
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('/api/licenses/validate', { key: `APP-GUESS-${i}` })).status);
    expect(statuses).toEqual([404, 404, 404, 429]);
  });
});
