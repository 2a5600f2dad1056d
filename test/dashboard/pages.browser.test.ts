import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { manualClock, startTestServer, type ManualClock, type TestServer } from '../helpers/testServer.ts';
import { invitedPerson, paidSession, seriousAxeViolations, watchCsp } from './dashboardFixtures.ts';

/**
 * The pages of the dashboard's first half in a real Chromium against a real server: a sale paid
 * through the public checkout routes on Home and in Sales with its timeline, API keys, the event
 * log, Settings (organization, members, sessions, passkeys). axe-core on each page.
 */
describe('dashboard pages', () => {
  let server: TestServer;
  let clock: ManualClock;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let csp: string[];
  let person: Awaited<ReturnType<typeof invitedPerson>>;
  let sessionId: string;
  let createdAt: number;

  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor();

  beforeAll(async () => {
    clock = manualClock();
    server = await startTestServer({ clock });
    chrome = await launchChromium();
    context = chrome.context;
    page = await context.newPage();
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    person = await invitedPerson(server, { organizations: [{ name: 'Paid Goods', timezone: 'Europe/Berlin' }, { name: 'Other Shop' }] });
    await makeOffer(server, person.organizationIds[0]!, { slug: 'pro-plan' });
    // Another organization's sale, which must show nowhere.
    await makeOffer(server, person.organizationIds[1]!, { slug: 'other-plan' });
    await paidSession(server, 'other-plan', { email: 'elsewhere@example.com' });

    // Created now, paid a minute later: the timeline has two distinct moments.
    createdAt = Math.floor(clock() / 1000);
    sessionId = await paidSession(server, 'pro-plan', { email: 'buyer@example.com', name: 'Ada Buyer' }, { pay: false });
    clock.advance(60_000);
    await paidSession(server, 'pro-plan', { email: 'buyer@example.com' }, { pay: false }); // an open one
    await fetch(`${server.url}/api/checkout/sessions/${sessionId}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card: { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2099, cvc: '123' } }),
    });
    await server.settle();

    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await h1('Home');
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  it('shows the paid session on Home: sales today, the chart, the latest sales', async () => {
    await page.goto(`${origin}/dashboard`);
    await h1('Home');
    await expect.poll(() => page.getByTestId('sales-today').textContent(), { timeout: 15_000 }).toBe('1');
    expect(await page.getByTestId('sales-30').textContent()).toBe('1');
    expect(await page.locator('.stat-sub').first().textContent()).toBe('€24.00');
    expect(await page.getByText('1 open').count()).toBe(1);
    await page.locator('.chart-canvas canvas').waitFor();
    const latest = page.getByRole('table', { name: 'Latest sales' });
    expect(await latest.getByRole('link', { name: /buyer@example.com/ }).count()).toBe(1);
    expect(await page.getByText('elsewhere@example.com').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('lists it in Sales with filters, and its timeline slider shows the session as it was before it was paid', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sales', exact: true }).click();
    await h1('Sales');
    const table = page.getByRole('table', { name: 'Checkout sessions' });
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBe(2);
    expect(await page.getByText('elsewhere@example.com').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByLabel('Status').selectOption('completed');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/status=completed/);
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);

    await page.getByLabel('Buyer email').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No session matches these filters').waitFor();
    await page.getByRole('button', { name: 'Clear the filters' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);

    await page.goto(`${origin}/dashboard/sales?status=completed`);
    await table.getByRole('link', { name: /buyer@example.com/ }).click();
    await h1('Checkout session');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/sales/${sessionId}`);
    const sessionCard = page.locator('#session-title').locator('..').locator('..');
    await sessionCard.getByText('completed', { exact: true }).waitFor();
    const invoiceCard = page.locator('#invoice-title').locator('..').locator('..');
    expect(await invoiceCard.locator('.badge').textContent()).toBe('paid');
    const items = page.locator('.timeline-item');
    expect(await items.count()).toBeGreaterThanOrEqual(5);
    expect(await items.first().textContent()).toContain('Session created');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The slider to its first position: the session as it was when created, in the URL.
    const slider = page.getByLabel('View the session as it stood at');
    await slider.focus();
    await page.keyboard.press('Home');
    await page.waitForURL(new RegExp(`[?&]at=${createdAt}(&|$)`));
    await page.getByRole('heading', { name: 'Session at that moment' }).waitFor();
    expect(await sessionCard.locator('.badge').first().textContent()).toBe('open');
    await page.getByText('No invoice yet').waitFor();
    expect(await page.locator('.timeline-item.future').count()).toBe((await items.count()) - 1);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The URL alone brings the same moment back.
    await page.reload();
    await page.getByRole('heading', { name: 'Session at that moment' }).waitFor();
    await page.getByText('No invoice yet').waitFor();
    await page.getByRole('button', { name: 'Back to now' }).click();
    await page.getByRole('heading', { name: 'Session', exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('at')).toBeNull();
    expect(csp).toEqual([]);
  });

  it('creates an API key whose token shows once and works, lists it, revokes it', async () => {
    await page.goto(`${origin}/dashboard/developers`);
    await h1('Developers');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('.field-error').waitFor(); // a name is required: the server says so beside the field
    await page.getByLabel('Name', { exact: true }).fill('Build server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = (await page.getByLabel("The new API key's token").textContent())!.trim();
    expect(token.length).toBeGreaterThan(20);
    expect((await server.fetch('/api/catalog/products', { token })).status).toBe(200);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    // Gone once the page has rendered the click, which Preact does after the event.
    await expect.poll(() => page.getByText(token).count()).toBe(0);
    await page.reload();
    await h1('Developers');
    const keys = page.getByRole('table', { name: 'API keys' });
    await keys.getByText('Build server').waitFor();
    // Whose the key is: it acts with that person's current role.
    await keys.getByRole('row', { name: /Build server/ }).getByText(`${person.email} (owner)`).waitFor();
    expect(await page.content()).not.toContain(token);
    await keys.getByRole('button', { name: 'Revoke Build server' }).click();
    await keys.getByRole('button', { name: /Yes, revoke/ }).click();
    await keys.getByText('revoked').waitFor();
    expect((await server.fetch('/api/catalog/products', { token })).status).toBe(401);
  });

  it('shows the event log filtered by type, linking to the session', async () => {
    await page.getByRole('link', { name: 'Event log' }).click();
    await h1('Developers');
    await page.getByLabel('Event type').fill('CheckoutSessionCompleted');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/type=CheckoutSessionCompleted/);
    await expect.poll(() => page.locator('.event-item').count()).toBe(1);
    expect(await page.locator('.event-type').first().textContent()).toBe('CheckoutSessionCompleted');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: `checkout_session-${sessionId}` }).click();
    await h1('Checkout session');
  });

  it('changes the organization settings, invites a member, lists the sessions, adds and removes a passkey', async () => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await page.goto(`${origin}/dashboard/settings`);
    await h1('Settings');
    await page.getByLabel('Name', { exact: true }).waitFor();
    await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
    await page.getByRole('region', { name: 'Organization' }).getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    expect((await (await page.evaluate(() => fetch('/manage/api/organization').then((r) => r.json()))) as { timezone: string }).timezone).toBe('Asia/Tokyo');

    await page.getByLabel('Invite by email').fill('colleague@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByLabel('Invitation link').textContent())!;
    expect(link).toMatch(/\/dashboard\/invitation#token=/);
    await page.getByRole('table', { name: 'Members' }).getByText('colleague@example.com').waitFor();

    expect(await page.getByRole('table', { name: 'Your sessions' }).getByText('This session').count()).toBe(1);

    await page.getByLabel('Passkey name').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const passkeys = page.getByRole('table', { name: 'Your passkeys' });
    await passkeys.getByText('Test laptop').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await passkeys.getByRole('button', { name: 'Remove Test laptop' }).click();
    await passkeys.getByRole('button', { name: /Yes, remove/ }).click();
    await page.getByText('No passkeys yet').waitFor();
    expect(csp).toEqual([]);
  });
});
