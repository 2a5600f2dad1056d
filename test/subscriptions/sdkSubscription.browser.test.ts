import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { flowResult, launchChromium, openPage, startFlow, type Loose } from '../sdk/sdkFixtures.ts';

/* The SDK's purchase event and flow result name the subscription a recurring plan's purchase made. Real Chromium, real server. */

type Win = Window & { examples: { readyAt?: number }; flows: Record<string, Loose> };

let server: TestServer;
let chrome: Awaited<ReturnType<typeof launchChromium>>;
const errors: string[] = [];

beforeAll(async () => {
  chrome = await launchChromium();
  server = await startTestServer();
  const { organizationId } = await server.identity('Subscription shop');
  const theme = { primary_color: '#0f766e' };
  const pages = [{ id: 'pay', type: 'checkout', title: 'Checkout' }];
  await runImport(
    { command: server.cliContext(organizationId), organizationId, catchUp: () => server.settle() },
    {
      products: [
        {
          key: 'pro',
          published: true,
          plans: [
            { name: 'monthly', display_name: 'Pro monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 2900 }] },
            { name: 'once', display_name: 'Lifetime', type: 'one_time', currency_code: 'EUR', charges: [{ amount: 9900 }] },
          ],
        },
      ],
      offers: [
        { slug: 'sdk-monthly', name: 'Pro', product: 'pro', plan: 'monthly', theme, pages, published: true },
        { slug: 'sdk-lifetime', name: 'Pro for life', product: 'pro', plan: 'once', theme, pages, published: true },
      ],
    },
  );
  await server.settle();
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await server?.close({ remove: true });
});

async function buy(offer: string): Promise<{ purchase: Loose; result: Loose }> {
  const page = await openPage(chrome.context, `${server.url}/examples/sdk?offer=${offer}`, { errors, ready: () => (window as unknown as Win).examples?.readyAt });
  try {
    await startFlow(page, 'f', `sdk.present('${offer}', { frame: 'modal', mode: 'test' })`);
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await frame.locator('#co-pay:not([disabled])').waitFor();
    await frame.locator('#co-email').fill('buyer@example.com');
    await frame.locator('#co-number').fill('4242424242424242');
    await frame.locator('#co-exp').fill('12 / 30');
    await frame.locator('#co-cvc').fill('123');
    await frame.locator('#co-pay').click();
    const result = (await flowResult(page, 'f')) as Loose;
    const purchase = await page.evaluate(async () => {
      for await (const ev of (window as unknown as Win).flows.f.events) if (ev.type === 'purchase') return ev;
      return null;
    });
    return { purchase, result };
  } finally {
    await page.close();
  }
}

describe('the SDK on a recurring plan', { timeout: 120_000 }, () => {
  test('the purchase event and the flow result carry the subscription; a one-time purchase carries null', async () => {
    const monthly = await buy('sdk-monthly');
    expect(monthly.result.status).toBe('complete');
    expect(monthly.purchase.subscription).toEqual({ id: expect.stringMatching(/^sub_[A-Za-z0-9]{24}$/), status: 'active' });
    expect(monthly.result.subscription).toEqual(monthly.purchase.subscription);
    const read = (await (await server.fetch(`/api/checkout/sessions/${monthly.result.session.id}`)).json()) as Loose;
    expect(read.session.subscription).toEqual(monthly.purchase.subscription);

    const lifetime = await buy('sdk-lifetime');
    expect(lifetime.result.status).toBe('complete');
    expect(lifetime.purchase.subscription).toBeNull();
    expect(lifetime.result.subscription).toBeNull();
    expect(errors).toEqual([]);
  });
});
