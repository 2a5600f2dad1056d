import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { plainText } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WAIT = { timeout: 30_000, interval: 100 };
const PASSWORD = 'smtp-pass-7f3c9a1e';

/** A real SMTP server on loopback that asks for a login (the organization's own). */
async function startAuthSmtp() {
  const accepted: { from: string; to: string[]; raw: string; user: string | undefined }[] = [];
  const server = new SMTPServer({
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'shop' && auth.password === PASSWORD) callback(null, { user: 'shop' });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        accepted.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as AddressInfo).port, accepted, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function purchase(server: TestServer, organizationId: string, email: string) {
  const offer = await makeOffer(server, organizationId);
  const session = ((await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body).session as Body;
  const paid = await server.fetch(`/api/checkout/sessions/${session.id}/pay`, json({ email, name: 'Buyer', card: GOOD_CARD }));
  expect(paid.status).toBe(200);
}

describe("an organization's own SMTP server (no SMTP_URL)", () => {
  let smtp: Awaited<ReturnType<typeof startAuthSmtp>>;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startAuthSmtp();
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000', RECEIPT_POLL_INTERVAL_MS: '200', SMTP_ALLOW_HOSTS: '127.0.0.1' } });
  });
  afterAll(async () => {
    await server?.close({ remove: true });
    await smtp?.close();
  });

  it('waits with no way out (Home counts it), then sends through the settings an owner sets; the password is sealed', { timeout: 90_000 }, async () => {
    const owner = await signedInPerson(server);
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    await purchase(server, owner.organizationId, 'waiting@example.com');
    await server.settle();
    await vi.waitFor(async () => expect((await owner.client.json('GET', '/manage/api/outbox')).body).toEqual({ waiting: 1, way_out: null }), WAIT);
    expect(((await owner.client.json('GET', '/manage/api/organization/smtp')).body as Body)).toMatchObject({ configured: false, operator_default: false });
    const none = await owner.client.json('POST', '/manage/api/organization/smtp/test');
    expect(none.status).toBe(409);
    expect((none.body as Body).code).toBe('smtp_not_configured');

    const settings = { host: '127.0.0.1', port: smtp.port, username: 'shop', password: PASSWORD, from: 'Acme Shop <shop@acme.test>' };
    expect((await member.client.json('PUT', '/manage/api/organization/smtp', settings)).status).toBe(403);
    expect((await member.client.json('GET', '/manage/api/organization/smtp')).status).toBe(403);
    const bad = await owner.client.json('PUT', '/manage/api/organization/smtp', { ...settings, host: 'smtp example', from: 'x\r\nBcc: a@b.c' });
    expect(bad.status).toBe(422);
    expect(Object.keys((bad.body as Body).errors).sort()).toEqual(['from', 'host']);
    // A private address the operator did not allow: refused (SSRF), with the reason.
    const internal = await owner.client.json('PUT', '/manage/api/organization/smtp', { ...settings, host: '10.1.2.3', port: 587 });
    expect(internal.status).toBe(422);
    expect((internal.body as Body).message).toContain('private');

    const set = await owner.client.json('PUT', '/manage/api/organization/smtp', settings);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ configured: true, host: '127.0.0.1', port: smtp.port, username: 'shop', from: 'Acme Shop <shop@acme.test>', password_set: true });
    expect(JSON.stringify(set.body)).not.toContain(PASSWORD);

    // The receipt that waited leaves through the organization's server, logged in, from its address.
    await vi.waitFor(() => expect(smtp.accepted.some((m) => m.to.includes('waiting@example.com'))).toBe(true), WAIT);
    const receipt = smtp.accepted.find((m) => m.to.includes('waiting@example.com'))!;
    expect(receipt.user).toBe('shop');
    expect(receipt.from).toBe('shop@acme.test');
    await vi.waitFor(async () => expect((await owner.client.json('GET', '/manage/api/outbox')).body).toEqual({ waiting: 0, way_out: 'organization' }), WAIT);

    // The test email goes to the signed-in owner and reports the server's answer.
    const tested = await owner.client.json('POST', '/manage/api/organization/smtp/test');
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ to: owner.email, via: 'organization' });
    expect((tested.body as Body).response).toMatch(/^250/);
    const test = smtp.accepted.find((m) => m.to.includes(owner.email))!;
    expect(plainText(test.raw)).toContain('This is a test email');

    // A later change without a password keeps the stored one.
    const renamed = await owner.client.json('PUT', '/manage/api/organization/smtp', { ...settings, password: undefined, from: 'shop@acme.test' });
    expect((renamed.body as Body).password_set).toBe(true);
    expect((await owner.client.json('POST', '/manage/api/organization/smtp/test')).status).toBe(200);
    // A wrong password: the test reports the server's refusal.
    await owner.client.json('PUT', '/manage/api/organization/smtp', { ...settings, password: 'wrong' });
    const refused = await owner.client.json('POST', '/manage/api/organization/smtp/test');
    expect(refused.status).toBe(502);
    expect((refused.body as Body).code).toBe('smtp_error');
    expect((refused.body as Body).message).toContain('Invalid username or password');

    // Neither the event log nor the read store holds the password readable.
    await server.settle();
    const files = readdirSync(server.dataDir).filter((f) => /\.(db|sqlite)(-wal)?$/.test(f) || f.endsWith('-wal'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(readFileSync(join(server.dataDir, file)).includes(Buffer.from(PASSWORD))).toBe(false);
    const events = await server.services.store.readStream(`smtp_settings-${owner.organizationId}`);
    expect(events.map((e) => e.type)).toEqual(['SmtpSettingsChanged', 'SmtpSettingsChanged', 'SmtpSettingsChanged']);

    // Another organization with no settings of its own: its receipt waits, never through this server.
    const other = await signedInPerson(server);
    await purchase(server, other.organizationId, 'other@example.com');
    await server.settle();
    await vi.waitFor(async () => expect((await other.client.json('GET', '/manage/api/outbox')).body).toEqual({ waiting: 1, way_out: null }), WAIT);
    expect(smtp.accepted.some((m) => m.to.includes('other@example.com'))).toBe(false);

    // Removed: the organization's mail has no way out again.
    expect((await owner.client.request('DELETE', '/manage/api/organization/smtp')).status).toBe(204);
    expect(((await owner.client.json('GET', '/manage/api/outbox')).body as Body).way_out).toBeNull();
  });

  it("an organization's waiting mail never holds back another's that can leave", { timeout: 120_000 }, async () => {
    const stuck = await signedInPerson(server);
    const offer = await makeOffer(server, stuck.organizationId);
    // More than the sender looks at in one go (50), all older than the one that can leave.
    for (let i = 0; i < 60; i++) {
      const session = ((await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body).session as Body;
      expect((await server.fetch(`/api/checkout/sessions/${session.id}/pay`, json({ email: `stuck${i}@example.com`, card: GOOD_CARD }))).status).toBe(200);
    }
    const ready = await signedInPerson(server);
    await purchase(server, ready.organizationId, 'ready@example.com');
    await server.settle();
    await vi.waitFor(async () => expect(((await ready.client.json('GET', '/manage/api/outbox')).body as Body).waiting).toBe(1), WAIT);
    // Its receipt was queued with no way out: only the sender's next look sends it.
    const set = await ready.client.json('PUT', '/manage/api/organization/smtp', { host: '127.0.0.1', port: smtp.port, username: 'shop', password: PASSWORD, from: 'ready@acme.test' });
    expect(set.status).toBe(200);
    await vi.waitFor(() => expect(smtp.accepted.some((m) => m.to.includes('ready@example.com'))).toBe(true), WAIT);
    expect(((await stuck.client.json('GET', '/manage/api/outbox')).body as Body).waiting).toBe(60);
  });
});

