import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CommandContext } from '../../platform/es/handleCommand.ts';
import type { EventStore } from '../../platform/eventStore/eventStore.ts';
import { STRIPE_CREDENTIALS } from '../../modules/payments/stripeCredentialStore.ts';
import { connectStripe, disconnectStripe, stripeSecretBox, stripeSecrets } from '../../modules/payments/stripeAccountCommands.ts';
import { stripeAccountStream } from '../../modules/payments/domain/stripeAccount.ts';
import { allProjections } from '../../app/allProjections.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startFakeStripe, type FakeAccount, type FakeStripe } from '../helpers/fakeStripe.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/*
 * The sealed Stripe secrets live in the read store's stripe_credentials, outside the event log:
 * a projection rebuild keeps them, a copy of the log alone does not carry them (then the service
 * says to reconnect), a disconnect deletes them, and a log written before them (sealed values in
 * the event) still pays.
 */
describe('Stripe credentials records', { timeout: 120_000 }, () => {
  // One key for every data directory here, so only the missing record can make a copy unreadable.
  const KEY = 'cd'.repeat(32);
  let stripe: FakeStripe;
  const dirs: string[] = [];
  const env = () => ({ CHECKOUT_RATE_LIMIT: '10000', DATA_ENCRYPTION_KEY: KEY, ...stripe.env });

  beforeAll(async () => {
    stripe = await startFakeStripe();
  });
  afterAll(async () => {
    await stripe?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function connectedShop(name: string) {
    const server = await startTestServer({ env: env() });
    dirs.push(server.dataDir);
    const org = await server.identity(name);
    const account = stripe.account();
    await connectStripe(server.cliContext(org.organizationId), stripeSecrets(server.services), {
      organizationId: org.organizationId,
      secretKey: account.secretKey,
      publishableKey: account.publishableKey,
      webhookSecret: account.webhookSecret,
    });
    const slug = (await makeOffer(server, org.organizationId)).slug;
    return { server, organizationId: org.organizationId, account, slug };
  }

  const post = (server: TestServer, path: string, body: unknown) =>
    server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  async function startPayment(server: TestServer, slug: string) {
    const created = await post(server, '/api/checkout/sessions', { offer: slug, mode: 'live' });
    expect(created.status).toBe(201);
    const { session } = (await created.json()) as { session: { id: string } };
    return post(server, `/api/checkout/sessions/${session.id}/payment-intent`, { email: 'buyer@example.com' });
  }

  it('is a collection no projection owns, so `projections rebuild` keeps it and live payments go on', async () => {
    for (const p of allProjections) expect(p.collections).not.toContain(STRIPE_CREDENTIALS);
    const shop = await connectedShop('Rebuilt shop');
    let server = shop.server;
    try {
      const before = await server.services.readStore.find(STRIPE_CREDENTIALS);
      expect(before).toHaveLength(1);
      const dataDir = server.dataDir;
      await server.close();
      const rebuild = await runCli(['projections', 'rebuild'], { DATA_DIR: dataDir, ...env() });
      expect(rebuild.code, rebuild.stderr).toBe(0);
      server = await startTestServer({ dataDir, env: env() });
      expect(await server.services.readStore.find(STRIPE_CREDENTIALS)).toEqual(before);
      // Sealed under the same key, found by the id in the event: the payment starts.
      const started = await startPayment(server, shop.slug);
      expect(started.status).toBe(200);
      expect(((await started.json()) as { payment_intent: { id: string } }).payment_intent.id).toMatch(/^pi_/);
    } finally {
      await server.close();
    }
  });

  it('is not in a copy of the event log: that data directory answers 409 saying to connect again, and a reconnect pays', async () => {
    const shop = await connectedShop('Copied shop');
    const from = shop.server.dataDir;
    await shop.server.close();
    const to = mkdtempSync(join(tmpdir(), 'commerce-copy-'));
    dirs.push(to);
    const copy = await runCli(['events', 'copy', '--from', from, '--to', to], { DATA_DIR: from, ...env() });
    expect(copy.code, copy.stderr).toBe(0);
    const rebuild = await runCli(['projections', 'rebuild'], { DATA_DIR: to, ...env() });
    expect(rebuild.code, rebuild.stderr).toBe(0);
    const server = await startTestServer({ dataDir: to, env: env() });
    try {
      // The same DATA_ENCRYPTION_KEY: the record is what is missing, not the key.
      expect(await server.services.readStore.find(STRIPE_CREDENTIALS)).toEqual([]);
      const refused = await startPayment(server, shop.slug);
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ code: 'stripe_credentials_unreadable', message: expect.stringMatching(/connect the Stripe account again/) });
      const event = stripe.signedEvent(shop.account, 'payment_intent.succeeded', { id: 'pi_x', object: 'payment_intent' });
      const hook = await server.fetch(`/webhooks/stripe/${shop.organizationId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });
      expect(hook.status).toBe(400);

      await connectStripe(server.cliContext(shop.organizationId), stripeSecrets(server.services), {
        organizationId: shop.organizationId,
        secretKey: shop.account.secretKey,
        publishableKey: shop.account.publishableKey,
        webhookSecret: shop.account.webhookSecret,
      });
      expect((await startPayment(server, shop.slug)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('is replaced on reconnect and deleted on disconnect', async () => {
    const { server, organizationId, slug } = await connectedShop('Leaving shop');
    try {
      const initial = await server.services.readStore.find<{ id: string; credentials_id: string }>(STRIPE_CREDENTIALS, { filter: { organization_id: organizationId } });
      expect(initial).toHaveLength(1);
      const other = stripe.account();
      const owner = server.cliContext(organizationId);
      await connectStripe(owner, stripeSecrets(server.services), { organizationId, secretKey: other.secretKey, publishableKey: other.publishableKey, webhookSecret: other.webhookSecret });
      const second = await server.services.readStore.find<{ id: string; credentials_id: string }>(STRIPE_CREDENTIALS, { filter: { organization_id: organizationId } });
      expect(second).toHaveLength(1);
      expect(second[0]!.credentials_id).not.toBe(initial[0]!.credentials_id);

      // Two reconnects overlapping: A appends first, but its clean-up reads the stream only after B
      // has appended (the real event store, held back once past A's append). The record kept is
      // the one the last event (B's) names.
      const [a, b] = [stripe.account(), stripe.account()];
      let bDone!: () => void;
      const bFinished = new Promise<void>((resolve) => (bDone = resolve));
      let appended = false;
      const real = server.services.store;
      const heldBack: EventStore = Object.assign(Object.create(real) as EventStore, {
        append: async (...args: Parameters<EventStore['append']>) => {
          const r = await real.append(...args);
          appended = true;
          return r;
        },
        readStream: async (stream: string) => {
          if (appended) await bFinished;
          return real.readStream(stream);
        },
      });
      const connect = (ctx: CommandContext, acc: FakeAccount) =>
        connectStripe(ctx, stripeSecrets(server.services), { organizationId, secretKey: acc.secretKey, publishableKey: acc.publishableKey, webhookSecret: acc.webhookSecret });
      const first = connect({ ...owner, store: heldBack }, a);
      await vi.waitFor(() => expect(appended).toBe(true));
      await connect(owner, b);
      bDone();
      await first;
      const events = await server.services.store.readStream(stripeAccountStream(organizationId));
      const current = (events.at(-1)!.data as { credentials_id: string; key_last4: string });
      expect(current.key_last4).toBe(b.secretKey.slice(-4));
      const kept = await server.services.readStore.find<{ id: string; credentials_id: string }>(STRIPE_CREDENTIALS, { filter: { organization_id: organizationId } });
      expect(kept.map((r) => r.credentials_id)).toEqual([current.credentials_id]);
      expect((await startPayment(server, slug)).status).toBe(200);

      await disconnectStripe(owner, server.services.stripeCredentials, organizationId);
      expect(await server.services.readStore.find(STRIPE_CREDENTIALS, { filter: { organization_id: organizationId } })).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('legacy: a connection whose event carries the sealed secrets (logs before the records) still pays', async () => {
    const server = await startTestServer({ env: env() });
    dirs.push(server.dataDir);
    try {
      const org = await server.identity('Legacy shop');
      const account: FakeAccount = stripe.account();
      const box = stripeSecretBox(server.services.secrets.data);
      // The event exactly as the code before credentials records wrote it.
      const ctx = server.cliContext(org.organizationId);
      await server.services.store.append(
        stripeAccountStream(org.organizationId),
        [
          {
            id: randomUUID(),
            type: 'StripeAccountConnected',
            data: {
              organization_id: org.organizationId,
              key_type: 'secret',
              key_mode: 'test',
              key_last4: account.secretKey.slice(-4),
              publishable_key: account.publishableKey,
              sealed_secret_key: box.seal(account.secretKey),
              sealed_webhook_secret: box.seal(account.webhookSecret),
              connected_at: ctx.metadata.occurred_at,
            },
            metadata: ctx.metadata,
          },
        ],
        'no_stream',
      );
      expect(await server.services.readStore.find(STRIPE_CREDENTIALS)).toEqual([]);
      const slug = (await makeOffer(server, org.organizationId)).slug;
      const started = await startPayment(server, slug);
      expect(started.status).toBe(200);
      const { payment_intent: pi } = (await started.json()) as { payment_intent: { id: string } };
      // The webhook secret is read from the legacy event too: a signed event is taken.
      const event = stripe.signedEvent(account, 'payment_intent.succeeded', stripe.succeed(pi.id));
      const hook = await server.fetch(`/webhooks/stripe/${org.organizationId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });
      expect(hook.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
