import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrganization } from '../../modules/identity/accountCommands.ts';
import { createOrganization } from '../../modules/identity/identityCommands.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { seriousAxeViolations, signInThroughForm, watchCsp } from './dashboardFixtures.ts';

type Listed = { data: Array<{ id: string; email: string; status: string; role: string }> };

/** Where the pages' screenshots go when SCREENSHOT_DIR is set (to look at them by hand). */
const shots = process.env.SCREENSHOT_DIR;

/**
 * A person who already has an account accepts invitations in a real Chromium: from Home once
 * signed in, and through the link (which asks a signed-out person to sign in and never sets the
 * existing account's password). The token never travels in a request's path or query.
 */
describe('accepting invitations in the dashboard', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let csp: string[];
  const requested: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    chrome = await launchChromium();
    context = chrome.context;
    page = await context.newPage();
    csp = watchCsp(page);
    page.on('request', (r) => requested.push(r.url()));
    origin = server.url.replace('127.0.0.1', 'localhost');
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  it('a signed-in person sees an invitation on Home and accepts it with its link; a link signed out asks to sign in, signed in accepts', async () => {
    const owner = await signedInPerson(server);
    const carol = await signedInPerson(server);
    const invited = await owner.client.json<{ id: string; invitation_link: string }>('POST', '/manage/api/members', { email: carol.email, role: 'member' });
    expect(invited.status).toBe(201);
    await server.settle();

    await signInThroughForm(page, origin, carol.email, carol.password);
    const card = page.getByRole('region', { name: 'Invitations' });
    await card.getByText(/invited you to join as a member/).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    if (shots) await page.screenshot({ path: `${shots}/home-invitation.png`, fullPage: true });
    // Home only declines: joining takes the link, which proves the invitation reached her.
    await card.getByText(/open the invitation link they sent you/).waitFor();
    expect(await card.getByRole('button', { name: 'Accept' }).count()).toBe(0);
    const ownerOrg = (await loadOrganization(server.services.store, owner.organizationId))!.name;
    await page.goto(invited.body.invitation_link.replace('127.0.0.1', 'localhost'));
    await page.getByRole('button', { name: `Accept and join ${ownerOrg}` }).click();
    // She works in the organization that invited her now, and the invitation is gone.
    await expect.poll(() => page.locator('.topbar-title').textContent(), { timeout: 10_000 }).toBe(ownerOrg);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Invitations' }).count()).toBe(0);
    await server.settle();
    const members = await owner.client.json<Listed>('GET', '/manage/api/members');
    expect(members.body.data.find((m) => m.email === carol.email)).toMatchObject({ status: 'active', role: 'member' });

    // A second organization invites her; she opens the link signed out first.
    const other = await createOrganization(server.cliContext(), { name: 'Harbour Books', timezone: 'UTC' });
    const otherOwner = await signedInPerson(server, { organizationId: other.id });
    const second = await otherOwner.client.json<{ invitation_link: string }>('POST', '/manage/api/members', { email: carol.email, role: 'owner' });
    const link = second.body.invitation_link.replace('127.0.0.1', 'localhost');
    const token = link.split('#token=')[1]!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();

    await page.goto(link);
    await page.getByRole('heading', { name: 'Join Harbour Books' }).waitFor();
    await page.getByText(/Already have an account\?/).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    if (shots) await page.screenshot({ path: `${shots}/invitation-signed-out.png`, fullPage: true });
    // Setting a password through the link does not touch her account.
    await page.getByLabel('Password').fill('someone else entirely');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByText('This email already has an account').waitFor();
    if (shots) await page.screenshot({ path: `${shots}/invitation-account-exists.png`, fullPage: true });

    await signInThroughForm(page, origin, carol.email, carol.password);
    await page.goto(link);
    await page.getByRole('button', { name: 'Accept and join Harbour Books' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    if (shots) await page.screenshot({ path: `${shots}/invitation-signed-in.png`, fullPage: true });
    await page.getByRole('button', { name: 'Accept and join Harbour Books' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.topbar-title').textContent()).toBe('Harbour Books');
    expect(new URL(page.url()).hash).toBe('');

    // Her own password still signs her in; the token never was in a path or query.
    expect((await fetch(`${server.url}/manage/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: carol.email, password: carol.password }) })).status).toBe(200);
    const secret = token.split('.')[1]!;
    expect(requested.filter((u) => u.split('#')[0]!.includes(secret))).toEqual([]);
    expect(csp).toEqual([]);
  });

  it('an owner sees a pending invitation as invited in Settings and revokes it', async () => {
    const owner = await signedInPerson(server);
    const invited = await owner.client.json<{ id: string }>('POST', '/manage/api/members', { email: 'pending@example.com', role: 'owner' });
    expect(invited.status).toBe(201);
    await server.settle();
    await page.context().clearCookies();
    await signInThroughForm(page, origin, owner.email, owner.password);
    await page.goto(`${origin}/dashboard/settings`);
    const row = page.getByRole('row', { name: /pending@example\.com/ });
    await row.getByText('Invited').waitFor();
    expect(await row.getByRole('combobox').count()).toBe(0); // no role to change before they accept
    expect(await seriousAxeViolations(page)).toEqual([]);
    if (shots) await page.screenshot({ path: `${shots}/members-invited.png`, fullPage: true });
    await row.getByRole('button', { name: 'Revoke the invitation of pending@example.com' }).click();
    await page.getByRole('button', { name: 'Yes, revoke: the invitation of pending@example.com' }).click();
    await expect.poll(() => page.getByRole('row', { name: /pending@example\.com/ }).count(), { timeout: 10_000 }).toBe(0);
    expect((await owner.client.request('DELETE', `/manage/api/members/${invited.body.id}`)).status).toBe(404);
  });
});
