/**
 * Screenshots of the dashboard's pages at 1280 and 390 px wide, into docs/dashboard/ (or --out):
 * a real server with a month of sales made through the public checkout routes, a real Chromium.
 *
 *   node bin/run-ts.js test/dashboard/screenshots.ts [--out /tmp/shots]
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { inviteUser } from '../../modules/identity/accountCommands.ts';
import { createApiKey } from '../../modules/identity/identityCommands.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { manualClock, startTestServer } from '../helpers/testServer.ts';
import { invitedPerson, paidSession } from './dashboardFixtures.ts';

const { out } = parseArgs({ options: { out: { type: 'string' } } }).values;
const dir = resolve(out ?? join(import.meta.dirname, '../../docs/dashboard'));
mkdirSync(dir, { recursive: true });

const realNow = Date.now();
const clock = manualClock(realNow - 30 * 86_400_000);
const server = await startTestServer({ clock, env: { CHECKOUT_RATE_LIMIT: '100000' } });
const person = await invitedPerson(server, { organizations: [{ name: 'Northwind Studio', timezone: 'Europe/Amsterdam' }, { name: 'Side Project', timezone: 'UTC' }] });
const org = person.organizationIds[0]!;
await makeOffer(server, org, { slug: 'pro-plan', content: { name: 'Pro plan' } });
await makeOffer(server, org, { slug: 'starter', content: { name: 'Starter', plan: { product_id: 'p2', plan_id: 'starter', plan_name: 'monthly', charges: [{ id: 'c1', name: 'Starter', amount: 900 }] } } });
const names = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth', 'Margaret Hamilton', 'Ken Thompson'];
let sessionId = '';
for (let day = 29; day >= 0; day--) {
  const sales = Math.round(2 + 3 * Math.sin(day / 4) + (29 - day) / 6);
  for (let i = 0; i < sales + 1; i++) {
    clock.set(realNow - day * 86_400_000 - (i + 1) * 3_100_000);
    const name = names[(day * 7 + i) % names.length]!;
    const email = `${name.split(' ')[0]!.toLowerCase()}${day}@example.com`;
    sessionId = await paidSession(server, i % 3 === 0 ? 'starter' : 'pro-plan', { email, name }, { pay: i < sales, declineFirst: i === 1 });
  }
}
// One session whose events are minutes apart, for the timeline.
clock.set(realNow - 9 * 60_000);
const withHistory = await paidSession(server, 'pro-plan', { email: 'ada@example.com', name: 'Ada Lovelace' }, { pay: false });
const pay = async (number: string) =>
  fetch(`${server.url}/api/checkout/sessions/${withHistory}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card: { number, exp_month: 12, exp_year: 2099, cvc: '123' } }),
  });
clock.set(realNow - 6 * 60_000);
await pay('4000000000000002');
clock.set(realNow - 2 * 60_000);
await pay('4242424242424242');
clock.set(realNow);
await createApiKey(server.cliContext(org), { organizationId: org, name: 'Production server', userId: person.userId });
// The invitation made 30 days ago (by the clock) has expired: a fresh one.
const { token } = await inviteUser(server.cliContext(org), person.userId);
await server.settle();
void sessionId;

const chrome = await launchChromium();
const origin = server.url.replace('127.0.0.1', 'localhost');
const page = await chrome.context.newPage();
await page.goto(`${origin}/dashboard/invitation#token=${token}`);
await page.getByLabel('Password').fill('correct horse battery');
const shots: [string, string][] = [
  ['home', '/dashboard'],
  ['sales', '/dashboard/sales'],
  ['session', `/dashboard/sales/${withHistory}`],
  ['session-at', `/dashboard/sales/${withHistory}?at=${Math.floor((realNow - 6 * 60_000) / 1000)}`],
  ['developers', '/dashboard/developers'],
  ['events', '/dashboard/developers/events'],
  ['settings', '/dashboard/settings'],
];
// Sign-in and invitation pages first, before signing in.
for (const [width, height, suffix] of [[1280, 800, 'desktop'], [390, 844, 'phone']] as const) {
  await page.setViewportSize({ width, height });
  await page.screenshot({ path: join(dir, `invitation-${suffix}.png`), fullPage: true });
}
await page.getByRole('button', { name: 'Set password and sign in' }).click();
await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
for (const [width, height, suffix] of [[1280, 800, 'desktop'], [390, 844, 'phone']] as const) {
  await page.setViewportSize({ width, height });
  for (const [name, path] of shots) {
    await page.goto(`${origin}${path}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(300); // the chart's canvas draws on the next frame
    await page.screenshot({ path: join(dir, `${name}-${suffix}.png`), fullPage: true });
  }
  if (suffix === 'desktop') {
    await page.goto(`${origin}/dashboard/developers`);
    await page.getByLabel('Name', { exact: true }).fill('Zapier');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'I have copied it' }).waitFor();
    await page.screenshot({ path: join(dir, `api-key-created-${suffix}.png`), fullPage: true });
  }
  if (suffix === 'phone') {
    await page.goto(`${origin}/dashboard`);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(dir, `navigation-${suffix}.png`) });
  }
}
await chrome.context.clearCookies();
for (const [width, height, suffix] of [[1280, 800, 'desktop'], [390, 844, 'phone']] as const) {
  await page.setViewportSize({ width, height });
  await page.goto(`${origin}/dashboard/sign-in`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.screenshot({ path: join(dir, `sign-in-${suffix}.png`), fullPage: true });
}
await chrome.close();
await server.close({ remove: true });
console.log(`screenshots in ${dir}`);
