import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caughtUp, eventuallyPasses as eventually, runCli, startServerProcess, type ServerProcess } from '../helpers/serverProcess.ts';
import { families, plan, product } from './catalogFixtures.ts';

type DemoJson = { organization: { id: string }; user: { id: string; email: string }; token: string; products: string[]; catch_url: string; url: string; digital: Record<string, { benefit: string }> };
type ListBody = { data: Array<{ id: string; name: string; version_number: number; status: string; published_at: number | null }> };

// Each case starts up to three CLI processes and a server may restart: up to 14 s each on a loaded
// two-core machine (measured beside a full run), so the 30-s default is too close.
describe('the CLI beside the running service (real processes, one DATA_DIR)', { timeout: 120_000 }, () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: ServerProcess;
  let demo: DemoJson;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'commerce-cli-'));
    env = { DATA_DIR: dataDir };
    server = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'warn' } });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (path: string, token = demo.token) =>
    fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });

  it('demo --json prints organization, user, token and five products, and is idempotent', async () => {
    const first = await runCli(['demo', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    demo = JSON.parse(first.stdout) as DemoJson;
    expect(Object.keys(demo)).toEqual(['organization', 'user', 'token', 'api_key_reused', 'invitation', 'products', 'catch_url', 'trigger_id', 'promo', 'offer', 'url', 'sdk_example_url', 'digital']);
    // The demo user cannot sign in yet: a one-time link to set a password.
    expect((demo as unknown as { invitation: unknown }).invitation).toEqual({ link: expect.stringMatching(/\/dashboard\/invitation#token=usr_\w+\.\w{32}$/), expires_at: expect.any(Number) });
    expect(demo.organization).toEqual({ id: 'org_demo' });
    expect(demo.user).toEqual({ id: expect.stringMatching(/^usr_/), email: 'demo@example.com' });
    expect(demo.token).toMatch(/^csk_key_/);
    expect(demo.products).toHaveLength(5);

    const second = await runCli(['demo', '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    const again = JSON.parse(second.stdout) as DemoJson;
    expect(again.products).toEqual(demo.products);
    // The digital goods' benefits too: a second run adds no benefit (nor uploads the PDF again).
    expect(again.digital).toEqual(demo.digital);
    expect(again.user.id).toBe(demo.user.id);
    // The same key again: the curl lines printed before keep working.
    expect(again.token).toBe(demo.token);

    // With the server's PORT in its environment, every URL the demo prints is the server's.
    const readable = await runCli(['demo'], { ...env, PORT: new URL(server.url).port });
    expect(readable.code, readable.stderr).toBe(0);
    const curlUrls = [...readable.stdout.matchAll(/(http:\/\/\S+?)\/(api|hooks)\//g)].map((m) => m[1]);
    expect(curlUrls.length).toBeGreaterThanOrEqual(7);
    expect(new Set(curlUrls)).toEqual(new Set([server.url]));

    // The server knowing the new key (identity) says nothing of where its catalog projection is.
    const list = await eventually(async () => {
      const response = await get('/api/catalog/products', again.token);
      expect(response.status).toBe(200);
      const body = (await response.json()) as ListBody;
      expect(body.data.map((p) => p.id)).toEqual(demo.products);
      return body;
    }, 15_000);
    expect(list.data.every((p) => p.version_number === 1 && p.published_at !== null)).toBe(true);
  });

  // The running service applies what another process wrote once its subscription polls the log
  // (a fraction of a second); how soon is never asserted: the bounds below are for a busy machine.
  it('serves what `commerce import` wrote', async () => {
    const file = join(dataDir, 'catalog.json');
    writeFileSync(file, JSON.stringify({ families, products: [product('cli-made', { plans: [plan('monthly'), plan('yearly', { renew_interval: 'P1Y' })] })] }));
    const run = await runCli(['import', file, '--org', 'org_demo', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { organization_id: string; sections: { products: Array<{ id: string; created: boolean }> } };
    const [made] = result.sections.products;
    expect(made).toMatchObject({ created: true });
    const plans = await eventually(async () => {
      const response = await get(`/api/catalog/products/${made!.id}/plans`);
      expect(response.status).toBe(200);
      return (await response.json()) as { data: Array<{ name: string }> };
    }, 15_000);
    expect(plans.data.map((p) => p.name)).toEqual(['monthly', 'yearly']);
    // The list follows (its page cache moves with the server's own projection).
    await eventually(async () => {
      const list = (await (await get('/api/catalog/products')).json()) as ListBody;
      expect(list.data.map((p) => p.id)).toContain(made!.id);
    }, 15_000);

    // The readable form, and archive by import key, seen by the running service too.
    const archive = await runCli(['product', 'archive', 'cli-made', '--org', 'org_demo'], env);
    expect(archive.code, archive.stderr).toBe(0);
    expect(archive.stdout).toContain(`product cli-made (${made!.id}) archived, version 2`);
    await eventually(async () => {
      const detail = (await (await get(`/api/catalog/products/${made!.id}`)).json()) as { status: string; archived_at: number | null };
      expect(detail).toMatchObject({ status: 'archived', archived_at: expect.any(Number) });
      const listed = (await (await get('/api/catalog/products')).json()) as ListBody;
      expect(listed.data.find((p) => p.id === made!.id)).toMatchObject({ status: 'archived', version_number: 2 });
    }, 15_000);
  });

  it('rejects a bad file on stderr with every error and a non-zero exit, writing nothing', async () => {
    // Whatever earlier CLI writes did, the server has applied it before the snapshot.
    await caughtUp(server.url);
    const before = (await (await get('/api/catalog/products')).json()) as ListBody;
    const file = join(dataDir, 'bad.json');
    writeFileSync(file, JSON.stringify({ products: [product('zzz', { family: 'nope', plans: [plan('m', { currency_code: 'XX' })] }), { key: '' }] }));
    const run = await runCli(['import', file, '--org', 'org_demo', '--json'], env);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    // With --json the error is JSON too: the message and every field's errors.
    const error = JSON.parse(run.stderr) as { message: string; errors: Record<string, string[]> };
    expect(error.message).toContain('nothing was imported');
    expect(Object.keys(error.errors)).toEqual(expect.arrayContaining(['products[0].plans[0].currency_code', 'products[1].key']));
    const readable = await runCli(['import', file, '--org', 'org_demo'], env);
    for (const path of ['products[0].plans[0].currency_code', 'products[1].key']) expect(readable.stderr).toContain(`${path}:`);
    const missing = await runCli(['import', join(dataDir, 'missing.json'), '--org', 'org_demo'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('ENOENT');
    const after = (await (await get('/api/catalog/products')).json()) as ListBody;
    expect(after).toEqual(before);
  });

  it('publishes by route key, and answers an unknown product on stderr', async () => {
    const [first] = demo.products;
    const run = await runCli(['product', 'publish', first!, '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: first, changed: false, version_number: 1 });
    const unknown = await runCli(['product', 'publish', 'nothere'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Product not found.');
  });

  it('stops serving a key the CLI revoked', async () => {
    const made = JSON.parse((await runCli(['api-key', 'create', '--user', demo.user.id, '--org', 'org_demo', '--json'], env)).stdout) as {
      id: string;
      token: string;
    };
    expect((await get('/api/catalog/products', made.token)).status).toBe(200);
    const revoked = await runCli(['api-key', 'revoke', made.id], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    await eventually(async () => expect((await get('/api/catalog/products', made.token)).status).toBe(401), 15_000);
    expect((await get('/api/catalog/products')).status).toBe(200);
  });

  it('keeps everything across a restart, read models included, and after a rebuild', async () => {
    const snapshot = async () => {
      const list = (await (await get('/api/catalog/products')).json()) as ListBody;
      const details = await Promise.all(list.data.map(async (p) => (await get(`/api/catalog/products/${p.id}`)).json()));
      const plans = await Promise.all(list.data.map(async (p) => (await get(`/api/catalog/products/${p.id}/plans`)).json()));
      return { list, details, plans };
    };
    const before = await snapshot();
    expect(before.list.data.length).toBe(6);
    const port = new URL(server.url).port;
    await server.stop();
    server = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'warn', PORT: port } });
    expect(await snapshot()).toEqual(before);

    const rebuild = await runCli(['projections', 'rebuild', '--json'], env);
    expect(rebuild.code, rebuild.stderr).toBe(0);
    expect((JSON.parse(rebuild.stdout) as { rebuilt: Array<{ name: string }> }).rebuilt.map((r) => r.name)).toContain('catalog');
    await eventually(async () => expect(await snapshot()).toEqual(before), 15_000);
  });
});
