import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { inviteUser } from '../../modules/identity/accountCommands.ts';
import { createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: string[] };

/**
 * axe-core run in the page (evaluated over the DevTools protocol, which the page's CSP does not
 * govern: the page itself still may not run inline script). Answers the serious and critical violations.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  return page.evaluate(`(async () => {
    if (!window.axe) { ${axeSource} }
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  })()`);
}

/** Console messages about the Content Security Policy (a refused script, style, frame, connection…). */
export function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

let counter = 0;

/** An organization (or two) and a person in it with a fresh invitation link. */
export async function invitedPerson(
  server: TestServer,
  options: { organizations?: { name: string; timezone?: string }[] } = {},
): Promise<{ email: string; userId: string; organizationIds: string[]; token: string }> {
  counter += 1;
  const orgs = options.organizations ?? [{ name: `Shop ${counter}`, timezone: 'UTC' }];
  const organizationIds: string[] = [];
  for (const o of orgs) organizationIds.push((await createOrganization(server.cliContext(), { name: o.name, timezone: o.timezone ?? 'UTC' })).id);
  const email = `seller${counter}-${Date.now()}@example.com`;
  let userId = '';
  for (const id of organizationIds) userId = (await createUser(server.cliContext(id), { email, organizationId: id, role: 'owner' })).id;
  const invitation = await inviteUser(server.cliContext(organizationIds[0]!), userId);
  return { email, userId, organizationIds, token: invitation.token };
}

/** Signs in through the dashboard's form and waits for the page it lands on. */
export async function signInThroughForm(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/**
 * A checkout through the public routes a buyer's browser calls: created for an offer, then paid
 * with the test card (or declined first, when `declineFirst`). Answers the session id.
 */
export async function paidSession(server: TestServer, offer: string, customer: { email: string; name?: string }, o: { pay?: boolean; declineFirst?: boolean } = {}): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await response.json()) as Record<string, unknown>;
    return { status: response.status, json };
  };
  const created = await post('/api/checkout/sessions', { offer, customer });
  if (created.status !== 201 && created.status !== 200) throw new Error(`creating a session: ${created.status} ${JSON.stringify(created.json)}`);
  const id = (created.json.session as { id: string }).id;
  if (o.declineFirst) await post(`/api/checkout/sessions/${id}/pay`, { card: { ...GOOD_CARD, number: '4000000000000002' } });
  if (o.pay !== false) {
    const paid = await post(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD });
    if (paid.status !== 200) throw new Error(`paying: ${paid.status} ${JSON.stringify(paid.json)}`);
  }
  return id;
}
