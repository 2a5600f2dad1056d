import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nextBoundary } from '../../modules/subscriptions/domain/subscription.ts';
import { testClockStream } from '../../modules/subscriptions/domain/testClock.ts';
import { toNewEvent } from '../../platform/es/handleCommand.ts';
import { runImport } from '../../app/import/importFile.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { DAY, importPlans, SubscriptionLog } from '../subscriptions/subscriptionFixtures.ts';
import { invitedPerson, seriousAxeViolations, watchCsp } from './dashboardFixtures.ts';

const HOUR = 3600;

/**
 * The Subscriptions list, a subscription's page and Home's MRR in a real Chromium against a real
 * server, over subscriptions whose logs the subscription decider's commands wrote (as a billing
 * run leaves them). Every time is before the server's now, and nothing is due before tomorrow,
 * so no billing run acts on them while the test looks. DASHBOARD_SCREENSHOTS=<dir> also writes
 * the list and a subscription's page at 1280 and 390 px wide.
 */
describe('dashboard: subscriptions', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let csp: string[];
  let organizationId: string;
  let plans: Awaited<ReturnType<typeof importPlans>>;
  let renewing: SubscriptionLog;
  let pro: SubscriptionLog;
  let trial: SubscriptionLog;
  let late: SubscriptionLog;
  let clocked: SubscriptionLog;
  let renewStart: number;
  let renewedAt: number;
  let clockTime: number;
  const now = Math.floor(Date.now() / 1000);
  const shots = process.env.DASHBOARD_SCREENSHOTS;

  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor({ timeout: 30_000 });

  /** No serious or critical axe violation, at desktop and phone width (no sideways scroll); screenshots when asked. */
  const check = async (name: string) => {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    expect(await seriousAxeViolations(page), name).toEqual([]);
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: `${shots}/${name}-desktop.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 }).toBeLessThanOrEqual(390);
    expect(await seriousAxeViolations(page), `${name} on a phone`).toEqual([]);
    if (shots) await page.screenshot({ path: `${shots}/${name}-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  /** A start such that the first period ends at `end` (the month arithmetic clamps, so it is searched). */
  const startEndingAt = (end: number, terms: ReturnType<typeof plans.terms>) => {
    let start = end - 31 * DAY;
    for (let i = 0; i < 5; i++) start += end - nextBoundary(start, terms, start);
    return start;
  };

  beforeAll(async () => {
    server = await startTestServer();
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    const person = await invitedPerson(server);
    organizationId = person.organizationIds[0]!;
    plans = await importPlans(server, organizationId);
    // Another product a subscription may move to (one monthly EUR plan, and one it may not: yearly).
    await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      {
        products: [
          {
            key: 'team-product',
            name: 'Team',
            display_name: 'Team',
            published: true,
            plans: [
              { name: 'team', display_name: 'Team', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 5000 }] },
              { name: 'team-yearly', display_name: 'Team yearly', renew_interval: 'P1Y', invoice_interval: 'P1Y', currency_code: 'EUR', charges: [{ amount: 50000 }] },
            ],
          },
        ],
      },
    );
    const basic = plans.terms('basic');

    // Live: one renewed once (its second period runs now), one on the dearer plan. MRR €40.00.
    renewStart = now - 45 * DAY;
    renewing = await SubscriptionLog.create(server, organizationId, { plan: basic, amount: 1000, at: renewStart, email: 'renewing@example.com', mode: 'live' });
    renewedAt = nextBoundary(renewStart, basic, renewStart);
    await renewing.bill(renewedAt);
    pro = await SubscriptionLog.create(server, organizationId, { plan: plans.terms('pro'), amount: 3000, at: now - 5 * DAY, email: 'pro@example.com', mode: 'live' });
    // Test mode: a trial, one whose renewal was declined an hour ago, one canceled, one on a test clock.
    trial = await SubscriptionLog.create(server, organizationId, { plan: basic, amount: 1000, at: now - 2 * DAY, email: 'trial@example.com', trialDays: 30 });
    late = await SubscriptionLog.create(server, organizationId, { plan: basic, amount: 1000, at: startEndingAt(now - HOUR, basic), email: 'late@example.com' });
    await late.bill(now - HOUR, { decline: 'insufficient_funds' });
    const gone = await SubscriptionLog.create(server, organizationId, { plan: basic, amount: 1000, at: now - 20 * DAY, email: 'gone@example.com' });
    await gone.act({ type: 'Cancel', atPeriodEnd: false, refund: 'none', requestedBy: 'seller', now: now - 19 * DAY });
    clockTime = now - 100 * DAY;
    const ctx = server.cliContext(organizationId);
    await ctx.store.append(testClockStream('clock_dashboard'), [toNewEvent({ type: 'TestClockCreated', data: { id: 'clock_dashboard', organization_id: organizationId, name: 'Dashboard', frozen_time: clockTime, created_at: now - DAY } }, ctx.metadata)], 'no_stream');
    clocked = await SubscriptionLog.create(server, organizationId, { plan: basic, amount: 1000, at: clockTime - 3 * DAY, email: 'clocked@example.com', testClock: 'clock_dashboard', paymentMethodId: 'pm_card_visa' });
    for (const sub of [renewing, pro, trial, late, gone, clocked]) {
      const due = await sub.nextDue();
      if (sub !== clocked) expect(due === null || due > now).toBe(true);
    }
    await server.settle();

    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await h1('Home');
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `test-results/subscriptions-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => undefined);
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  }, 120_000);

  it("shows Home's MRR (live, per currency) and the active subscriptions, with test mode's beside, and leads to the list", async () => {
    await expect.poll(() => page.getByTestId('mrr').textContent(), { timeout: 15_000 }).toBe('€40.00');
    expect(await page.getByTestId('active-subscriptions').textContent()).toBe('2 active subscriptions');
    // Test mode, as Stripe counts MRR: the past-due one and the clock's active one; not the trial, not the canceled one.
    expect(await page.getByTestId('mrr-test').textContent()).toBe('Test mode: €20.00, 2 active');
    await check('home-subscriptions');
    await page.getByRole('link', { name: 'View subscriptions' }).click();
    await h1('Subscriptions');
  });

  it('lists subscriptions with their status, access, price and next step; filters by status and email; marks test mode and test clocks', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Subscriptions' }).click();
    await h1('Subscriptions');
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(6);
    const row = (email: string) => rows.filter({ hasText: email });
    expect(await row('renewing@example.com').textContent()).toContain('€10.00 / month');
    expect(await row('renewing@example.com').textContent()).toContain('Renews');
    expect(await row('renewing@example.com').textContent()).not.toContain('Test');
    expect(await row('late@example.com').textContent()).toContain('Past due');
    expect(await row('late@example.com').textContent()).toContain('Next payment attempt');
    expect(await row('trial@example.com').textContent()).toContain('Trial ends');
    expect(await row('trial@example.com').getByText('Test', { exact: true }).count()).toBe(1);
    expect(await row('clocked@example.com').textContent()).toContain('Test clock clock_dashboard');
    expect(await row('gone@example.com').textContent()).toMatch(/Canceled.*No/);
    // The plan under the email is for phones, where the Plan column is hidden: not shown twice here.
    expect(await row('renewing@example.com').locator('.row-sub.phone-only').isVisible()).toBe(false);
    await check('subscriptions');

    await page.getByLabel('Status').selectOption('trialing');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.url()).toContain('status=trialing');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1);
    expect(await rows.first().textContent()).toContain('trial@example.com');

    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Customer email').fill('pro@example.com');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(async () => (await rows.allTextContents()).join('|'), { timeout: 15_000 }).toMatch(/^[^|]*pro@example\.com[^|]*$/);

    await page.getByLabel('Customer email').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No subscription matches these filters').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Clear the filters' }).click();
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(6);
  });

  it("opens one: its summary, invoices, timeline and statement as of an instant, with each line's reason", async () => {
    await page.goto(`${origin}/dashboard/subscriptions`);
    await page.getByRole('link', { name: 'renewing@example.com' }).click();
    await h1('Subscription');
    const summary = page.getByTestId('subscription-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toContain('Yes: the buyer has access');
    expect(await summary.textContent()).toContain('€10.00 / month');

    const invoices = page.getByRole('table', { name: 'Invoices of this subscription' });
    await expect.poll(() => invoices.locator('tbody tr').count(), { timeout: 15_000 }).toBe(2);
    expect(await invoices.locator('tbody tr').first().textContent()).toMatch(/Renewal.*€10\.00.*paid/);
    expect(await invoices.locator('tbody tr').nth(1).textContent()).toContain('First invoice (checkout)');

    const history = page.getByRole('region', { name: 'History' });
    await expect.poll(() => history.locator('.timeline-item').count(), { timeout: 15_000 }).toBe(4);
    expect(await history.locator('.timeline-item').first().textContent()).toContain('Subscription created');
    expect(await history.locator('.timeline-item').last().textContent()).toContain('Invoice paid');

    const statement = page.getByTestId('statement');
    await expect.poll(() => page.getByTestId('statement-invoiced').textContent(), { timeout: 15_000 }).toBe('€20.00');
    expect(await page.getByTestId('statement-paid').textContent()).toBe('€20.00');
    expect(await page.getByTestId('statement-owed').textContent()).toBe('€0.00');
    expect(await statement.textContent()).toContain('Period ');

    // The first event on the timeline: the statement as it stood before the renewal.
    await history.getByRole('button', { name: /Subscription created: show the statement/ }).click();
    await expect.poll(() => page.url()).toContain(`as_of=${renewStart}`);
    await expect.poll(() => page.getByTestId('statement-invoiced').textContent(), { timeout: 15_000 }).toBe('€10.00');
    expect(await statement.textContent()).toContain('Paid at checkout');
    // The slider moves to the last stop: now again.
    const slider = page.getByRole('slider', { name: 'Statement as of' });
    await slider.focus();
    await page.keyboard.press('End');
    await expect.poll(() => page.url()).not.toContain('as_of=');
    await expect.poll(() => page.getByTestId('statement-invoiced').textContent(), { timeout: 15_000 }).toBe('€20.00');
    // A date typed: the day before the renewal, at noon.
    const day = new Date((renewedAt - DAY) * 1000).toISOString().slice(0, 10);
    await page.getByLabel('Date', { exact: true }).fill(day);
    await page.getByLabel('Time', { exact: true }).fill('12:00');
    await page.getByRole('button', { name: 'Show statement' }).click();
    await expect.poll(() => page.url()).toContain(`as_of=${Date.parse(`${day}T12:00:00Z`) / 1000}`);
    await expect.poll(() => page.getByTestId('statement-invoiced').textContent(), { timeout: 15_000 }).toBe('€10.00');
    await page.getByRole('button', { name: 'Back to now' }).click();
    await expect.poll(() => page.getByTestId('statement-invoiced').textContent(), { timeout: 15_000 }).toBe('€20.00');

    // An answer that lands while a date is being typed leaves the typed date alone.
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const statementRoute = (url: URL) => url.pathname.endsWith('/statement');
    await page.route(statementRoute, async (route) => {
      await held;
      await route.continue();
    });
    await history.getByRole('button', { name: /Subscription created: show the statement/ }).click();
    await page.getByLabel('Date', { exact: true }).fill('2020-01-02');
    release();
    await expect.poll(() => page.getByTestId('statement-invoiced').textContent(), { timeout: 15_000 }).toBe('€10.00');
    expect(await page.getByLabel('Date', { exact: true }).inputValue()).toBe('2020-01-02');
    await page.unroute(statementRoute);
    await page.getByRole('button', { name: 'Back to now' }).click();
    await expect.poll(() => page.getByTestId('statement-invoiced').textContent(), { timeout: 15_000 }).toBe('€20.00');
    await check('subscription');
  });

  it('cancels at period end and reactivates through the page, each confirmed, the timeline and summary following', async () => {
    await page.goto(`${origin}/dashboard/subscriptions/${renewing.id}`);
    await h1('Subscription');
    const history = page.getByRole('region', { name: 'History' });
    await expect.poll(() => history.locator('.timeline-item').count(), { timeout: 15_000 }).toBe(4);
    await page.getByRole('button', { name: 'Cancel at period end' }).click();
    // It asks first; nothing is sent until confirmed.
    await page.getByRole('group', { name: 'Confirm: Cancel at period end' }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, cancel at period end');
    await page.getByRole('button', { name: 'Yes, cancel at period end' }).click();
    await page.getByRole('heading', { name: 'Scheduled to cancel' }).waitFor({ timeout: 15_000 });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), { timeout: 15_000 }).toBe('Reactivate');
    await expect.poll(() => page.getByTestId('subscription-summary').textContent(), { timeout: 15_000 }).toContain('Cancels at the end of the term');
    await expect.poll(() => history.locator('.timeline-item').count(), { timeout: 15_000 }).toBe(5);
    expect(await history.locator('.timeline-item').last().textContent()).toContain('Cancellation scheduled at period end');
    await check('subscription-cancel-scheduled');

    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.getByRole('heading', { name: 'Cancel at period end' }).waitFor({ timeout: 15_000 });
    await expect.poll(() => history.locator('.timeline-item').count(), { timeout: 15_000 }).toBe(6);
    expect(await history.locator('.timeline-item').last().textContent()).toContain('Reactivated');
    expect(await page.getByTestId('subscription-summary').textContent()).not.toContain('Cancels at the end of the term');
  });

  it("shows a refused action's message beside its button: Resume of one canceled behind the page's back", async () => {
    // Past due: no Pause offered (only an active or trialing one pauses).
    await page.goto(`${origin}/dashboard/subscriptions/${late.id}`);
    await h1('Subscription');
    await expect.poll(() => page.getByTestId('subscription-summary').textContent(), { timeout: 15_000 }).toContain('Past due');
    await page.getByText('Only an active or trialing subscription can be paused.').waitFor();
    expect(await page.getByRole('button', { name: 'Pause', exact: true }).count()).toBe(0);
    await check('subscription-past-due');

    // The trial paused (here from the command line), its page opened, then canceled elsewhere.
    await trial.act({ type: 'Pause', now: Math.floor(Date.now() / 1000) });
    await page.goto(`${origin}/dashboard/subscriptions/${trial.id}`);
    await h1('Subscription');
    const resume = page.getByRole('button', { name: 'Resume', exact: true });
    await resume.waitFor({ timeout: 15_000 });
    await trial.act({ type: 'Cancel', atPeriodEnd: false, refund: 'none', requestedBy: 'seller', now: Math.floor(Date.now() / 1000) });
    await resume.click();
    await page.getByRole('button', { name: 'Yes, resume' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The subscription has ended.' });
    await alert.waitFor({ timeout: 15_000 });
    const [button, message] = await Promise.all([resume.boundingBox(), alert.boundingBox()]);
    expect(Math.abs(message!.y - button!.y)).toBeLessThan(80);
  });

  it('changes the plan with a proration behaviour; the statement shows the proration lines and their derivation', async () => {
    await page.goto(`${origin}/dashboard/subscriptions/${pro.id}`);
    await h1('Subscription');
    await page.getByLabel('New plan').selectOption({ label: 'Basic: €10.00 / month' });
    await page.getByLabel('Proration').selectOption('create_prorations');
    // Rendered after the change event.
    await expect.poll(() => page.getByText('both on the next renewal invoice').count()).toBe(1);
    await page.getByRole('button', { name: 'Change plan', exact: true }).click();
    await page.getByRole('button', { name: 'Yes, change plan' }).click();
    await expect.poll(() => page.getByTestId('subscription-summary').textContent(), { timeout: 15_000 }).toContain('€10.00 / month');
    const statement = page.getByTestId('statement');
    await expect.poll(() => statement.textContent(), { timeout: 15_000 }).toContain('Plan changed: pro (€30.00) → basic (€10.00)');
    expect(await statement.textContent()).toContain('Credit for the unused time of pro');
    expect(await statement.textContent()).toContain('Charge for the rest of the period on basic');
    expect(await statement.textContent()).toContain('On the next invoice');
    // The choice is put back: the plan chosen is the current one now, and pro is offered instead.
    expect(await page.getByLabel('New plan').inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Change plan', exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel('New plan').locator('option').allTextContents()).toEqual(['Choose a plan', 'Pro: €30.00 / month', 'Team: €50.00 / month']);
    expect(await page.getByLabel('New plan').locator('optgroup').evaluateAll((groups) => groups.map((g) => g.getAttribute('label')))).toEqual(['SaaS (its product)', 'Team']);
    await check('subscription-plan-changed');

    // To another product's plan.
    await page.getByLabel('New plan').selectOption({ label: 'Team: €50.00 / month' });
    await page.getByLabel('Proration').selectOption('none');
    await page.getByRole('button', { name: 'Change plan', exact: true }).click();
    await page.getByText('Move to Team, Team (€50.00 / month)').waitFor();
    await page.getByRole('button', { name: 'Yes, change plan' }).click();
    await expect.poll(() => page.getByTestId('subscription-summary').textContent(), { timeout: 15_000 }).toContain('€50.00 / month');
    await expect.poll(() => statement.textContent(), { timeout: 15_000 }).toContain('Plan changed: basic (€10.00) → team (€50.00)');
    expect(await page.getByLabel('New plan').locator('option').allTextContents()).toEqual(['Choose a plan', 'Basic: €10.00 / month', 'Pro: €30.00 / month']);
  });

  it("shows a test clock's time on a subscription that lives on one; the page raises no CSP violation", async () => {
    await page.goto(`${origin}/dashboard/subscriptions/${clocked.id}`);
    await h1('Subscription');
    await expect.poll(() => page.getByTestId('clock-time').textContent(), { timeout: 15_000 }).toMatch(/^Its time: /);
    const shown = await page.getByTestId('clock-time').textContent();
    const expected = await page.evaluate((t) => new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(t * 1000)), clockTime);
    expect(shown).toBe(`Its time: ${expected}`);
    expect(csp).toEqual([]);
  });

  it('advances the test clock past the renewal: the service bills it, and the page shows the new period and invoice', async () => {
    const basic = plans.terms('basic');
    const start = clockTime - 3 * DAY;
    const renewal = nextBoundary(start, basic, start);
    const after = nextBoundary(renewal, basic, start);
    const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 19);
    await page.goto(`${origin}/dashboard/subscriptions/${clocked.id}`);
    await h1('Subscription');
    const card = page.getByRole('region', { name: 'Test clock' });
    await expect.poll(() => page.getByTestId('clock-status').textContent(), { timeout: 15_000 }).toBe('Ready');
    expect(await card.textContent()).toContain('Dashboard');
    expect(await page.getByTestId('clock-frozen-time').textContent()).toContain(new Date(clockTime * 1000).getUTCFullYear().toString());
    const field = page.getByLabel('Advance to');
    // The next renewal, to the second (the organization's time zone is UTC).
    await expect.poll(() => field.inputValue(), { timeout: 15_000 }).toBe(iso(renewal));
    const invoices = page.getByRole('table', { name: 'Invoices of this subscription' });
    await expect.poll(() => invoices.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);

    // Backwards: refused beside the field, nothing moves.
    await field.fill(iso(clockTime - DAY));
    await page.getByRole('button', { name: 'Advance clock' }).click();
    await card.getByText('A test clock only moves forward').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('clock-status').textContent()).toBe('Ready');

    // To the renewal: advancing first (the page's reads of the clock held until that is seen), then ready.
    await field.fill(iso(renewal));
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const clockRead = (url: URL) => url.pathname === '/manage/api/test_clocks/clock_dashboard';
    await page.route(clockRead, async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Advance clock' }).click();
    await expect.poll(() => page.getByTestId('clock-status').textContent(), { timeout: 15_000 }).toBe('Advancing…');
    expect(await page.getByRole('button', { name: 'Advance clock' }).isDisabled()).toBe(true);
    release();
    await expect.poll(() => page.getByTestId('clock-status').textContent(), { timeout: 30_000 }).toBe('Ready');
    await page.unroute(clockRead);

    // The page read the subscription again: the renewal invoice, paid, and the next period.
    await expect.poll(() => invoices.locator('tbody tr').count(), { timeout: 15_000 }).toBe(2);
    expect(await invoices.locator('tbody tr').first().textContent()).toMatch(/Renewal.*€10\.00.*paid/);
    const period = await page.evaluate(
      ([a, b]) => [a, b].map((t) => new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(t! * 1000))).join(' – '),
      [renewal, after],
    );
    await expect.poll(() => page.getByTestId('subscription-summary').textContent(), { timeout: 15_000 }).toContain(period);
    // The history (which carries the clock's time) is read again beside the subscription: its answer may come later.
    const renewalShown = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(renewal * 1000));
    await expect.poll(() => page.getByTestId('clock-time').textContent(), { timeout: 15_000 }).toContain(renewalShown);
    await expect.poll(() => page.getByRole('region', { name: 'History' }).textContent(), { timeout: 15_000 }).toContain('Invoice paid');
    // The next default is the renewal after.
    await expect.poll(() => field.inputValue(), { timeout: 15_000 }).toBe(iso(after));
    expect(csp).toEqual([]);
    await check('subscription-test-clock');
  });

  it('lists test clocks under Developers, creates one at a frozen time and deletes it', async () => {
    await page.goto(`${origin}/dashboard/developers`);
    await h1('Developers');
    await page.getByRole('link', { name: 'Test clocks' }).click();
    const table = page.getByRole('table', { name: 'Test clocks' });
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
    expect(await table.locator('tbody tr').first().textContent()).toContain('clock_dashboard');

    await page.getByLabel('Name').fill('Annual renewals');
    await page.getByLabel('Frozen time').fill('2027-01-31T12:00:05');
    await page.getByRole('button', { name: 'Create clock' }).click();
    const row = table.locator('tbody tr').filter({ hasText: 'Annual renewals' });
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain('Jan 31, 2027, 12:00:05 PM');
    expect(await row.textContent()).toContain('Ready');
    const id = (await row.locator('.mono').textContent())!;
    const listed = await page.evaluate(async () => (await (await fetch('/manage/api/test_clocks')).json()) as { data: { id: string; frozen_time: number; name: string }[] });
    expect(listed.data.find((c) => c.id === id)).toMatchObject({ frozen_time: Date.UTC(2027, 0, 31, 12, 0, 5) / 1000, name: 'Annual renewals' });
    await check('test-clocks');

    await row.getByRole('button', { name: 'Delete Annual renewals' }).click();
    await page.getByRole('button', { name: 'Yes, delete it and end its subscriptions: Annual renewals' }).click();
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
    expect(await table.textContent()).not.toContain('Annual renewals');
  });
});
