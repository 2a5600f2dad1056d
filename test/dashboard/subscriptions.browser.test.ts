import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { DAY, importPlans, SubscriptionLog } from '../subscriptions/subscriptionFixtures.ts';
import { invitedPerson, seriousAxeViolations, watchCsp } from './dashboardFixtures.ts';

/**
 * The dashboard's subscriptions in a real Chromium: MRR on Home, the list with its status filter,
 * a subscription's page with its statement slider and the seller's actions. axe-core on each page.
 */
describe('dashboard subscriptions', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let csp: string[];
  let live: SubscriptionLog;
  let declined: SubscriptionLog;
  const now = Date.UTC(2026, 4, 20, 12) / 1000;
  const clock = manualClock(now * 1000);
  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor();

  beforeAll(async () => {
    server = await startTestServer({ clock });
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    const person = await invitedPerson(server, { organizations: [{ name: 'Recurring Goods' }, { name: 'Other Shop' }] });
    const [orgId, otherId] = person.organizationIds as [string, string];
    const plans = await importPlans(server, orgId);
    // Nothing of these is due at the service's clock: no billing run acts on them meanwhile.
    live = await SubscriptionLog.create(server, orgId, { plan: plans.terms('pro'), amount: 3000, at: now - 10 * DAY, email: 'live@example.com', mode: 'live' });
    await SubscriptionLog.create(server, orgId, { plan: plans.terms('basic'), amount: 1000, at: now - 2 * DAY, email: 'trial@example.com', trialDays: 30 });
    declined = await SubscriptionLog.create(server, orgId, { plan: plans.terms('basic'), amount: 1000, at: now - 32 * DAY, email: 'late@example.com' });
    await declined.bill(now - 3600, { decline: 'insufficient_funds' });
    await SubscriptionLog.create(server, otherId, { plan: plans.terms('basic'), amount: 1000, at: now - DAY, email: 'elsewhere@example.com' });
    await server.settle();

    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await h1('Home');
  }, 60_000);
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  it('shows MRR and active subscriptions on Home', async () => {
    await expect.poll(() => page.getByTestId('mrr').textContent(), { timeout: 15_000 }).toBe('€30.00');
    expect(await page.getByTestId('active-subscriptions').textContent()).toBe('1');
    expect(await page.getByText('test mode: €10.00').count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('lists subscriptions with a status filter, never another organization’s', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Subscriptions', exact: true }).click();
    await h1('Subscriptions');
    const table = page.getByRole('table', { name: 'Subscriptions' });
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBe(3);
    expect(await page.getByText('elsewhere@example.com').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByLabel('Status').selectOption('past_due');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/status=past_due/);
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.textContent()).toContain('late@example.com');
  });

  it('shows a subscription’s statement as of any moment, and runs the seller’s actions', async () => {
    await page.goto(`${origin}/dashboard/subscriptions/${declined.id}`);
    await h1('Subscription');
    const owed = page.getByTestId('statement-owed');
    await expect.poll(() => owed.textContent(), { timeout: 15_000 }).toBe('€10.00');
    await page.getByText('attempt 1: insufficient_funds').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Back to the first moment: nothing was owed yet.
    const slider = page.getByLabel('Statement as of');
    await slider.focus();
    await page.keyboard.press('Home');
    await page.waitForURL(/[?&]as_of=\d+/);
    await expect.poll(() => owed.textContent()).toBe('€0.00');

    await page.goto(`${origin}/dashboard/subscriptions/${live.id}`);
    await h1('Subscription');
    const entitled = page.getByTestId('entitled');
    await expect.poll(() => entitled.textContent(), { timeout: 15_000 }).toContain('Yes');
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await expect.poll(() => entitled.textContent()).toBe('No');
    await page.getByText('no renewal is invoiced').waitFor();
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await expect.poll(() => entitled.textContent()).toContain('Yes');
    await page.getByRole('button', { name: 'Cancel at period end', exact: true }).click();
    await page.getByRole('button', { name: 'Reactivate', exact: true }).waitFor();
    await page.getByText('canceled at period end').waitFor();
    await page.getByRole('button', { name: 'Reactivate', exact: true }).click();
    await page.getByRole('button', { name: 'Cancel at period end', exact: true }).waitFor();
    const items = page.locator('.timeline-item');
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(5);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });
});
