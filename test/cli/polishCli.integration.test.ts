import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caughtUp, runCli, startServerProcess, tempDataDir, type ServerProcess } from '../helpers/serverProcess.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const shop = {
  products: [{ key: 'guide', display_name: 'Guide', plans: [{ name: 'once', display_name: 'Guide', type: 'one_time', currency_code: 'EUR', charges: [{ amount: 900 }] }] }],
  offers: [{ slug: 'guide-now', name: 'Guide', product: 'guide', plan: 'once', theme: { primary_color: '#112233' }, pages: [{ id: 'pay', type: 'checkout', title: 'Guide' }], published: true }],
};

/**
 * What a new seller meets running the CLI a second time beside a server on a port of its own:
 * the demo's key, an import of the same file, the one organization, the outbox's links. Each CLI
 * run starts a process (seconds on a busy machine), so each case asks several things of a run.
 */
describe('commerce CLI run again beside a running server', { timeout: 240_000 }, () => {
  const dataDir = tempDataDir('commerce-polish-cli-');
  let server: ServerProcess;
  const commerce = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  let demo: Body;

  beforeAll(async () => {
    server = await startServerProcess({ dataDir });
    const run = await commerce('demo', '--json');
    expect(run.code, run.stderr).toBe(0);
    demo = JSON.parse(run.stdout) as Body;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('demo run again prints the same API key, and leaves one demo key', async () => {
    const again = await commerce('demo', '--json');
    expect(again.code, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout) as Body;
    expect(second.token).toBe(demo.token);
    expect(second.api_key_reused).toBe(true);
    const me = await fetch(`${server.url}/api/users/me`, { headers: { authorization: `Bearer ${second.token}`, accept: 'application/json' } });
    expect(me.status).toBe(200);
    const keys = JSON.parse((await commerce('api-key', 'list', '--json')).stdout) as Array<{ name: string; revoked_at?: number | null }>;
    expect(keys.filter((k) => k.name === 'demo')).toHaveLength(1);
  });

  it('an import of an unchanged file says unchanged for each offer and product', async () => {
    const file = join(dataDir, 'shop.json');
    writeFileSync(file, JSON.stringify(shop));
    const first = await commerce('import', file, '--org', 'org_demo');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/created\s+offer guide-now/);
    const second = await commerce('import', file, '--org', 'org_demo');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/unchanged offer guide-now \(\w+\), published/);
    expect(second.stdout).toMatch(/unchanged product guide/);
    expect(second.stdout).not.toContain('updated');
    writeFileSync(file, JSON.stringify({ ...shop, offers: [{ ...shop.offers[0], name: 'Guide, second edition' }] }));
    expect((await commerce('import', file, '--org', 'org_demo')).stdout).toMatch(/updated\s+offer guide-now/);
  });

  it('webhook-endpoint list needs no --org with one organization; outbox show links the receipt on the server’s address', async () => {
    const list = await commerce('webhook-endpoint', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);

    const created = await post(`${server.url}/api/checkout/sessions`, { offer: 'demo-pro-monthly' });
    const id = ((await created.json()) as Body).session.id as string;
    const paid = await post(`${server.url}/api/checkout/sessions/${id}/pay`, { card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' }, email: 'reader@example.com' });
    expect(paid.status).toBe(200);
    await caughtUp(server.url);
    const outbox = JSON.parse((await commerce('outbox', 'list', '--json')).stdout) as Body;
    const invoiceId = outbox.receipts[0].invoice_id as string;
    const shown = await commerce('outbox', 'show', invoiceId, '--json');
    expect(shown.code, shown.stderr).toBe(0);
    const receipt = JSON.parse(shown.stdout) as Body;
    expect(server.url).not.toMatch(/:3000$/);
    expect(receipt.receipt_url).toMatch(new RegExp(`^${server.url}/receipts/`));
    expect(receipt.text).toContain(receipt.receipt_url);
    expect((await fetch(receipt.receipt_url as string)).status).toBe(200);
  });
});
