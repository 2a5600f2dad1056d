import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caughtUp, runCli, startServerProcess, tempDataDir, type ServerProcess } from '../helpers/serverProcess.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const card = (number: string) => ({ number, exp_month: 12, exp_year: 2040, cvc: '123' });
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * What a newcomer meets with the server on a port of its own (PORT=0 here: whatever is free) and
 * the CLI run without PORT: the links the CLI prints must be the server's. Each CLI run starts a
 * process (seconds on a busy two-core machine), so each case asks several things of one run.
 */
describe('commerce CLI beside a running server', { timeout: 240_000 }, () => {
  const dataDir = tempDataDir('commerce-newcomer-');
  let server: ServerProcess;
  const commerce = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  let demo: Body;

  beforeAll(async () => {
    server = await startServerProcess({ dataDir });
    const run = await commerce('demo', '--json');
    expect(run.code, run.stderr).toBe(0);
    // demo sets a data directory up on purpose: no "new data directory" note.
    expect(run.stderr).toBe('');
    demo = JSON.parse(run.stdout) as Body;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('demo --json and trigger list print the URLs the server answers on, not :3000; the checkout link and the SDK page answer', async () => {
    expect(server.url).not.toMatch(/:3000$/);
    expect(demo.url).toBe(server.url);
    expect(demo.catch_url).toMatch(new RegExp(`^${server.url}/hooks/catch/`));
    expect(demo.offer.checkout_url).toBe(`${server.url}/checkout/demo-pro-monthly`);
    expect(demo.sdk_example_url).toBe(`${server.url}/examples/sdk`);
    const page = await fetch(demo.offer.checkout_url as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Pay');
    expect((await fetch(demo.sdk_example_url as string)).status).toBe(200);

    const triggers = await commerce('trigger', 'list');
    expect(triggers.code, triggers.stderr).toBe(0);
    expect(triggers.stdout).toContain(`${server.url}/hooks/catch/`);

    // BASE_URL (a public address in front of the server) still wins.
    const behindProxy = await runCli(['trigger', 'list', '--json'], { DATA_DIR: dataDir, BASE_URL: 'https://shop.example.com' });
    expect((JSON.parse(behindProxy.stdout) as Body[])[0]!.catch_url).toMatch(/^https:\/\/shop\.example\.com\/hooks\/catch\//);
  });

  it('import prints the checkout link of each offer and the SDK example page; a one_time plan needs no invoice_interval, eur reads as EUR', async () => {
    const file = join(dataDir, 'shop.json');
    const plan = { name: 'once', display_name: 'Lifetime', type: 'one_time', currency_code: 'eur', charges: [{ amount: 1500 }] };
    const offer = { slug: 'ebook-now', name: 'E-book', product: 'ebook', plan: 'once', theme: { primary_color: '#112233' }, pages: [{ id: 'pay', type: 'checkout', title: 'E-book' }], published: true };
    // First with the slip people make: a price in units, not minor units.
    writeFileSync(file, JSON.stringify({ products: [{ key: 'ebook', plans: [{ ...plan, charges: [{ amount: 15.0001 }] }] }] }));
    const refused = await commerce('import', file, '--org', 'org_demo');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('products[0].plans[0].charges[0].amount: amount must be an integer in minor units: 999 for 9.99');
    expect(refused.stderr).not.toMatch(/expected|received/);

    writeFileSync(file, JSON.stringify({ products: [{ key: 'ebook', published: true, plans: [plan] }], offers: [offer] }));
    const run = await commerce('import', file, '--org', 'org_demo');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`  ${server.url}/checkout/ebook-now`);
    expect(run.stdout).toContain(`SDK example page: ${server.url}/examples/sdk?offer=ebook-now`);
    expect((await fetch(`${server.url}/checkout/ebook-now`)).status).toBe(200);

    await caughtUp(server.url);
    const products = (await (await fetch(`${server.url}/api/catalog/products`, { headers: { authorization: `Bearer ${demo.token}` } })).json()) as Body;
    const ebook = (products.data as Body[]).at(-1)!; // the newest product: the list is in creation order
    const plans = (await (await fetch(`${server.url}/api/catalog/products/${ebook.id}/plans`, { headers: { authorization: `Bearer ${demo.token}` } })).json()) as Body;
    expect(plans.data[0]).toMatchObject({ name: 'once', type: 'one_time', currency_code: 'EUR', invoice_interval: 'P0D', renew_interval: null });
  });

  it('product, offer, api-key, org and session list show what exists; replay session shows the buyer and the decline', async () => {
    // A buyer declined once (insufficient funds), then paying.
    const created = (await (await post(`${server.url}/api/checkout/sessions`, { offer: 'demo-pro-monthly' })).json()) as Body;
    const id = created.session.id as string;
    expect((await post(`${server.url}/api/checkout/sessions/${id}/start`, { email: 'buyer@example.com' })).status).toBe(200);
    const declined = await post(`${server.url}/api/checkout/sessions/${id}/pay`, { card: card('4000000000009995') });
    expect(declined.status).toBe(402);
    expect((await post(`${server.url}/api/checkout/sessions/${id}/pay`, { card: card('4242424242424242') })).status).toBe(200);

    const products = await commerce('product', 'list', '--org', 'org_demo');
    expect(products.code, products.stderr).toBe(0);
    expect(products.stdout).toMatch(/^ID\s+KEY\s+ORGANIZATION\s+STATUS/);
    expect(products.stdout).toContain(demo.products[0] as string);

    const offers = JSON.parse((await commerce('offer', 'list', '--org', 'org_demo', '--json')).stdout) as Body[];
    expect(offers.find((o) => o.slug === 'demo-pro-monthly')).toMatchObject({ status: 'published', checkout_url: `${server.url}/checkout/demo-pro-monthly` });

    const keys = await commerce('api-key', 'list', '--org', 'org_demo');
    expect(keys.stdout).toContain('demo@example.com');
    expect(keys.stdout).toContain('active');
    // Hashes and tokens never leave the read model.
    expect(keys.stdout).not.toMatch(/csk_key_|secret/i);
    expect((JSON.parse((await commerce('api-key', 'list', '--org', 'org_nobody', '--json')).stdout) as Body[]).length).toBe(0);

    const orgs = JSON.parse((await commerce('org', 'list', '--json')).stdout) as Body[];
    expect(orgs.map((o) => o.id)).toContain('org_demo');

    const sessions = await commerce('session', 'list', '--org', 'org_demo');
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(sessions.stdout).toMatch(new RegExp(`${id}.*completed.*buyer@example\\.com.*#\\d+ paid`));

    const replay = await commerce('replay', 'session', id);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/CheckoutSessionPaymentDeclined.*buyer@example\.com\s+card_declined \(insufficient_funds\)/);
    expect(replay.stdout).toContain('buyer buyer@example.com');
  });

  it('workflow list shows the runs a catch URL started', async () => {
    const caught = (await (await post(demo.catch_url as string, { email: 'fan@example.com', ref: 'wf-1' })).json()) as Body;
    expect(caught.workflow_id).toEqual(expect.any(Number));
    await expect
      .poll(async () => JSON.parse((await commerce('workflow', 'list', '--org', 'org_demo', '--json')).stdout) as Body[], { timeout: 60_000, interval: 500 })
      .toEqual(expect.arrayContaining([expect.objectContaining({ workflow_id: caught.workflow_id, status: 'completed' })]));
  });

  it('a Send Webhook step the SSRF guard refused says which setting allows it, in workflow show and in the server log', async () => {
    const file = join(dataDir, 'hook.json');
    writeFileSync(
      file,
      JSON.stringify({
        sequences: [{ key: 'to-self', name: 'To myself', actions: [{ type: 'send_webhook', url: 'http://127.0.0.1:9/hook' }], triggers: [{ key: 'in', name: 'In' }] }],
      }),
    );
    const imported = JSON.parse((await commerce('import', file, '--org', 'org_demo', '--json')).stdout) as Body;
    const caught = (await (await post(`${server.url}${imported.sections.sequences[0].triggers[0].catch_path as string}`, {})).json()) as Body;
    await expect
      .poll(async () => (await commerce('workflow', 'show', String(caught.workflow_id))).stdout, { timeout: 60_000, interval: 500 })
      .toContain('"error": "blocked_address"');
    const shown = await commerce('workflow', 'show', String(caught.workflow_id));
    expect(shown.stdout).toContain('WEBHOOK_ALLOW_HOSTS=127.0.0.1');
    expect(server.output()).toContain('WEBHOOK_ALLOW_HOSTS=127.0.0.1');
  });

  it('once the server is gone, links fall back to HOST and PORT of the environment', async () => {
    await server.stop();
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false);
    const run = await runCli(['trigger', 'list', '--json'], { DATA_DIR: dataDir, PORT: '3999' });
    expect((JSON.parse(run.stdout) as Body[])[0]!.catch_url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/hooks\/catch\//);
  });
});

describe('commerce CLI: first steps', { timeout: 180_000 }, () => {
  const parent = mkdtempSync(join(tmpdir(), 'commerce-first-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('a command that creates a new data directory says where, and how to point at the right one; the next run is quiet', async () => {
    const fresh = join(parent, 'elsewhere', 'data');
    const first = await runCli(['org', 'list'], { DATA_DIR: fresh });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(resolve(fresh));
    expect(first.stderr).toContain('DATA_DIR=');
    expect(first.stdout.trim()).toBe('(none)');
    const second = await runCli(['org', 'list'], { DATA_DIR: fresh });
    expect(second.stderr).toBe('');

    const jsonRun = await runCli(['org', 'list', '--json'], { DATA_DIR: join(parent, 'other') });
    expect(JSON.parse(jsonRun.stderr)).toMatchObject({ warning: 'new_data_dir', data_dir: resolve(parent, 'other') });
    expect(JSON.parse(jsonRun.stdout)).toEqual([]);
  });

  it('commerce alone exits 2 with a short usage; a typo gets the nearest command; with --json errors are JSON on stderr', async () => {
    const env = { DATA_DIR: join(parent, 'usage') };
    const alone = await runCli([], env);
    expect(alone.code).toBe(2);
    expect(alone.stdout).toBe('');
    expect(alone.stderr).toContain('usage: commerce <command>');
    expect(alone.stderr.split('\n').length).toBeLessThan(15);

    const typo = await runCli(['improt', 'x.json'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'improt'; did you mean 'commerce import'?");
    const groupTypo = await runCli(['prodcut', 'lst'], env);
    expect(groupTypo.stderr).toContain("did you mean 'commerce product'?");
    const secondWord = await runCli(['offer', 'lsit'], env);
    expect(secondWord.stderr).toContain("did you mean 'commerce offer list'?");
    const nothingNear = await runCli(['frobnicate'], env);
    expect(nothingNear.stderr).not.toContain('did you mean');

    const usageJson = await runCli(['improt', '--json'], env);
    expect(usageJson.code).toBe(2);
    expect(JSON.parse(usageJson.stderr)).toEqual({ message: "unknown command 'improt'; did you mean 'commerce import'?", code: 'usage_error', suggestion: 'commerce import' });
    const notFoundJson = await runCli(['replay', 'session', 'cs_nothing', '--json'], env);
    expect(notFoundJson.code).toBe(1);
    expect(JSON.parse(notFoundJson.stderr.trim().split('\n').at(-1)!)).toEqual({ message: 'Checkout session not found.', code: 'not_found' });
  });
});
