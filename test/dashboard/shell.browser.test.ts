import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP } from '../../platform/http/dashboard/dashboardRoutes.ts';
import { inviteUser } from '../../modules/identity/accountCommands.ts';
import { createUser } from '../../modules/identity/identityCommands.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { invitedPerson, seriousAxeViolations, signInThroughForm, watchCsp } from './dashboardFixtures.ts';

/**
 * The dashboard's shell in a real Chromium against a real server: the invitation link, signing
 * out and in again, a deep link through sign-in, the organization switcher, the policy.
 */
describe('dashboard shell', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let csp: string[];

  beforeAll(async () => {
    server = await startTestServer();
    chrome = await launchChromium();
    context = chrome.context;
    page = await context.newPage();
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  it('serves the shell with a strict policy at /dashboard and every path under it, and its assets gzipped', async () => {
    for (const path of ['/dashboard', '/dashboard/sales/cs_123', '/dashboard/sign-in?next=%2Fdashboard']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await response.text();
      expect(html).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
      expect(html).not.toMatch(/<style|style=/);
    }
    expect(DASHBOARD_CSP).toMatch(/script-src 'self'/);
    expect(DASHBOARD_CSP).toMatch(/frame-ancestors 'none'/);
    const html = await (await fetch(`${server.url}/dashboard`)).text();
    const script = /src="(\/dashboard\/assets\/dashboard\.js\?v=[^"]+)"/.exec(html)![1]!;
    const js = await fetch(`${server.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toMatch(/immutable/);
    const etag = js.headers.get('etag')!;
    expect((await fetch(`${server.url}${script}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(`${server.url}/dashboard/assets/missing.js`)).status).toBe(404);
  });

  it('signs in with an invitation link (password), signs out, signs in again; a deep link comes back after sign-in', async () => {
    const person = await invitedPerson(server);
    const response = await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    expect(response!.headers()['content-security-policy']).toBe(DASHBOARD_CSP);
    await expect.poll(() => page.getByText(person.email).count(), { timeout: 15_000 }).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Too short: the server's message shows beside the field.
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.locator('.field-error').waitFor();
    expect(await page.locator('.field-error').textContent()).toMatch(/8/);
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(new URL(page.url()).hash).toBe(''); // the used token is out of the address bar
    expect(await page.evaluate(() => Object.keys(localStorage).length + Object.keys(sessionStorage).length)).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The link is used up.
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByText('This invitation link has been used').waitFor();

    await page.goto(`${origin}/dashboard`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect(await page.evaluate(async () => (await fetch('/manage/api/session')).status)).toBe(401);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // A wrong password: the server's words beside the email field.
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('These credentials do not match our records.').waitFor();
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).isEnabled()).toBe(true); // busy ends with the failure

    // A page asked for while signed out: sign in, then that page.
    await page.goto(`${origin}/dashboard/settings`);
    await page.waitForURL(/\/dashboard\/sign-in\?next=%2Fdashboard%2Fsettings$/);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings');

    // Every navigation entry leads to its page, through the client router.
    for (const name of ['Catalog', 'Offers', 'Sales', 'Subscriptions', 'Promos', 'Automation', 'Developers', 'Settings', 'Home']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      expect(await page.getByRole('link', { name, exact: true }).getAttribute('aria-current')).toBe('page');
    }
    expect(csp).toEqual([]);
  });

  it('switches organization: the session moves to the other one and the pages follow', async () => {
    const person = await invitedPerson(server, { organizations: [{ name: 'Alpha Goods' }, { name: 'Beta Wares', timezone: 'Asia/Tokyo' }] });
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await context.clearCookies();
    await signInThroughForm(page, origin, person.email, 'correct horse battery');
    // Home's figures (sales, subscriptions) have loaded: no answer of the first organization lands after the switch.
    await page.waitForLoadState('networkidle');

    const switcher = page.getByLabel('Organization');
    const before = await switcher.inputValue();
    const other = person.organizationIds.find((id) => id !== before)!;
    // While the switch is under way (its answer held), the select shows the choice, not the organization being left.
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const switchCall = (url: URL) => url.pathname === '/manage/api/session/organization';
    await page.route(switchCall, async (route) => {
      await held;
      await route.continue();
    });
    await switcher.selectOption(other);
    await expect.poll(() => switcher.isDisabled()).toBe(true);
    expect(await switcher.inputValue()).toBe(other);
    release();
    await expect.poll(() => page.evaluate(async () => ((await (await fetch('/manage/api/session')).json()) as { current_organization: { id: string } }).current_organization.id)).toBe(other);
    await expect.poll(() => switcher.isDisabled()).toBe(false);
    expect(await switcher.inputValue()).toBe(other);
    await page.unroute(switchCall);
    // A reload keeps it: the server holds the choice, not the page.
    await page.reload();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await page.getByLabel('Organization').inputValue()).toBe(other);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });

  it('accepts an invitation with a passkey and signs in with it alone, through the pages (virtual authenticator)', async () => {
    const person = await invitedPerson(server);
    const keyPage = await context.newPage();
    const cdp = await context.newCDPSession(keyPage);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    // No passkey yet: the browser's prompt fails as a cancelled one does (NotAllowedError), which
    // is no error to show; the button is busy, then free again.
    await context.clearCookies(); // signed out: the sign-in page stays
    await keyPage.goto(`${origin}/dashboard/sign-in`);
    const busy = await watchBusy(keyPage, 'Sign in with a passkey');
    await keyPage.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect.poll(busy, { timeout: 15_000 }).toEqual(['true', null]);
    expect(await keyPage.getByRole('alert').count()).toBe(0);

    await keyPage.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await keyPage.getByRole('button', { name: 'Use a passkey instead' }).click();
    await keyPage.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await keyPage.getByRole('button', { name: 'Sign out' }).click();
    await keyPage.getByText('You are signed out.').waitFor();
    await keyPage.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await keyPage.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    const session = await keyPage.evaluate(async () => (await (await fetch('/manage/api/session')).json()) as { user: { email: string; has_password: boolean; passkeys: number } });
    expect(session.user).toMatchObject({ email: person.email, has_password: false, passkeys: 1 });
    await keyPage.close();
  });

  it('sends a person whose session ended to sign in, and back to the page afterwards', async () => {
    const person = await invitedPerson(server);
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    // Home's own requests are answered first: the session ends while the person reads it.
    await page.waitForLoadState('networkidle');
    await context.clearCookies(); // as a revocation from another device would
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Developers', exact: true }).click();
    await page.waitForURL(/\/dashboard\/sign-in\?next=%2Fdashboard%2Fdevelopers$/);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Developers', level: 1 }).waitFor();
  });

  it("shows a member what owners manage without the owners' controls", async () => {
    const owner = await invitedPerson(server);
    const email = `member-${Date.now()}@example.com`;
    const member = await createUser(server.cliContext(owner.organizationIds[0]!), { email, organizationId: owner.organizationIds[0]!, role: 'member' });
    const { token } = await inviteUser(server.cliContext(owner.organizationIds[0]!), member.id);
    await page.goto(`${origin}/dashboard/invitation#token=${token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await page.goto(`${origin}/dashboard/developers`);
    await page.getByText('Only owners of the organization manage API keys.').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    await page.goto(`${origin}/dashboard/settings`);
    await page.getByText('Only owners change these.').first().waitFor();
    expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Invite by email').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('fits a 390 px phone: the navigation is a drawer behind the menu button', async () => {
    const person = await invitedPerson(server);
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await phone.getByLabel('Password').fill('correct horse battery');
    await phone.getByRole('button', { name: 'Set password and sign in' }).click();
    await phone.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    expect(await phone.getByRole('link', { name: 'Sales', exact: true }).isVisible()).toBe(false);
    await phone.getByRole('button', { name: 'Menu' }).click();
    await phone.getByRole('link', { name: 'Sales', exact: true }).click();
    await phone.getByRole('heading', { name: 'Sales', level: 1 }).waitFor();
    // The drawer closes in an effect after the new page renders: waited for, not raced.
    await expect.poll(() => phone.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('false');
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousAxeViolations(phone)).toEqual([]);
    await phone.close();
  });
});

/** The values the button's aria-busy takes from now on (null when it is removed), to read after a click. */
async function watchBusy(page: Page, name: string): Promise<() => Promise<Array<string | null>>> {
  await page.getByRole('button', { name, exact: true }).waitFor();
  await page.evaluate((label) => {
    const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === label)!;
    const seen: Array<string | null> = [];
    (window as unknown as { busySeen: typeof seen }).busySeen = seen;
    new MutationObserver(() => seen.push(button.getAttribute('aria-busy'))).observe(button, { attributes: true, attributeFilter: ['aria-busy'] });
  }, name);
  return () => page.evaluate(() => (window as unknown as { busySeen: Array<string | null> }).busySeen);
}
