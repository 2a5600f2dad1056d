import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SequenceImportResult } from '../../modules/automation/automationImport.ts';
import { sendWebhookSecretBox } from '../../modules/automation/sendWebhookSecrets.ts';
import { ImportValidationError, runImport } from '../../app/import/importFile.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

describe('import sections promos and sequences', () => {
  let server: TestServer;
  let me: Awaited<ReturnType<TestServer['identity']>>;
  beforeAll(async () => {
    server = await startTestServer();
    me = await server.identity();
  });
  afterAll(() => server.close({ remove: true }));

  const now = Math.floor(Date.now() / 1000);
  const file = (over: { tiers?: unknown[]; url?: string; enabled?: boolean } = {}) => ({
    promos: [{ slug: 'imp-launch', name: 'Launch', starts_at: now - 10, ends_at: now + 3600, tiers: over.tiers ?? [{ name: 'Early', price: 1000 }], offers: ['pro-monthly'] }],
    sequences: [
      {
        key: 'signups',
        name: 'Sign-ups',
        actions: [
          { type: 'enrol_in_promo', promo: 'imp-launch' },
          { type: 'send_webhook', url: over.url ?? 'https://crm.example.com/hook', payload: '{"e":"{{webhook_payload.email}}"}', signing_secret: 'whsec_Y29tbWVyY2UtdGVzdC1pbXBvcnQtc2VjcmV0LWtleS0=' },
        ],
        triggers: [{ key: 'form', name: 'Form', enabled: over.enabled ?? true }],
      },
    ],
  });
  const run = (input: unknown) =>
    runImport(
      { command: server.cliContext(me.organizationId), organizationId: me.organizationId, catchUp: server.settle, sendWebhookSecrets: sendWebhookSecretBox(server.services.secrets.jwt) },
      input,
    );

  it('creates promos, sequences and triggers; re-importing changes nothing, a changed file updates in place', async () => {
    const first = await run(file());
    const [sequence] = first.sections.sequences as SequenceImportResult[];
    expect(sequence).toMatchObject({ key: 'signups', created: true, triggers: [{ key: 'form', created: true }] });
    expect(first.sections.promos).toEqual([{ slug: 'imp-launch', created: true, changed: true }]);
    const catchPath = sequence!.triggers[0]!.catch_path!;
    expect((await server.fetch(catchPath, { method: 'POST' })).status).toBe(200);

    const head = await server.services.store.headPosition();
    const again = await run(file());
    expect(await server.services.store.headPosition()).toBe(head);
    expect((again.sections.sequences as SequenceImportResult[])[0]).toMatchObject({ created: false, changed: false, triggers: [{ catch_path: catchPath, created: false }] });

    await run(file({ tiers: [{ name: 'Early', price: 800 }], url: 'https://crm.example.com/v2', enabled: false }));
    await server.settle();
    const promo = (await (await server.fetch('/api/promos/imp-launch')).json()) as { current_tier: { price: number } };
    expect(promo.current_tier.price).toBe(800);
    expect(await (await server.fetch(catchPath, { method: 'POST' })).json()).toEqual({ success: true, message: 'Webhook received but trigger was skipped', workflow_id: null });
    const everything = JSON.stringify(await server.services.readStore.find('automation_sequences'));
    expect(everything).toContain('https://crm.example.com/v2');
    expect(everything).not.toContain('whsec_Y29tbWVyY2UtdGVzdC1pbXBvcnQtc2VjcmV0LWtleS0=');
    // Sealed at rest: the log holds no secret in plain text, only what the service's key opens.
    const log = JSON.stringify(await server.services.store.readAll({ after: null, limit: 100_000 }));
    expect(log).not.toContain('Y29tbWVyY2UtdGVzdC1pbXBvcnQtc2VjcmV0LWtleS0');
    expect(log).toContain('"signing_secret":"v1.');
  });

  it('refuses a signing secret from a caller that cannot seal it, writing nothing', async () => {
    const head = await server.services.store.headPosition();
    const unsealed = runImport({ command: server.cliContext(me.organizationId), organizationId: me.organizationId, catchUp: server.settle }, file());
    const error = await unsealed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportValidationError);
    expect((error as ImportValidationError).issues.map((i) => i.message).join('\n')).toContain('This caller cannot seal signing secrets.');
    expect(await server.services.store.headPosition()).toBe(head);
  });

  it('lists every problem of a bad file and writes nothing', async () => {
    const head = await server.services.store.headPosition();
    const bad = {
      promos: [
        { slug: 'Bad Slug', name: '', starts_at: 10, ends_at: 5, tiers: [{ name: 'T', price: 1, discount_percent: 5 }] },
        { slug: 'dup', name: 'x', starts_at: 1, ends_at: 2, tiers: [] },
        // A fixed price for every offer: the buyer names the promo, so it would price any of them.
        { slug: 'fixed-everywhere', name: 'x', starts_at: 1, ends_at: 2, tiers: [{ name: 'T', price: 100 }] },
        { slug: 'no-offers', name: 'x', starts_at: 1, ends_at: 2, tiers: [{ name: 'T', discount_percent: 10 }], offers: [] },
      ],
      sequences: [
        { key: 'k', name: 'n', actions: [{ type: 'send_webhook', url: 'ftp://x/' }, { type: 'send_webhook', url: 'https://x.test/', method: 'GET', payload: '{}' }, { type: 'nope' }] },
        { key: 'k', name: 'n', triggers: [{ key: 't', name: 'T' }, { key: 't', name: 'T' }] },
        {
          key: 'templates',
          name: 'n',
          actions: [
            { type: 'send_webhook', url: 'https://x.test/ok', payload: '{"n":{{webhook_payload.n}}}' },
            { type: 'send_webhook', url: 'https://x.test/text', payload: 'not json' },
            { type: 'send_webhook', url: 'https://x.test/open', payload: '{"n":{{webhook_payload.n}}' },
          ],
        },
        { key: 'headers', name: 'n', actions: [{ type: 'send_webhook', url: 'https://x.test/h', headers: { 'X-Token': 'abc\r\nX-Injected: 1' } }] },
      ],
    };
    const error = await run(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportValidationError);
    const paths = (error as ImportValidationError).issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(['promos[0].slug', 'promos[0].name', 'promos[0].ends_at', 'promos[0].tiers[0]', 'promos[1].tiers', 'promos[2].offers', 'promos[3].offers', 'sequences[0].actions[0].url', 'sequences[0].actions[1].payload', 'sequences[0].actions[2].type', 'sequences[3].actions[0].headers.X-Token']),
    );
    const templates = (error as ImportValidationError).issues.filter((i) => i.path.startsWith('sequences[2].'));
    expect(templates.map((i) => i.path)).toEqual(['sequences[2].actions[1].payload', 'sequences[2].actions[2].payload']);
    expect(templates[0]!.message).toMatch(/^The payload of this action \(send_webhook to https:\/\/x\.test\/text\) must be a JSON template: .+\(.+\)\.$/);
    expect(templates[1]!.message).toContain('send_webhook to https://x.test/open');
    expect(await server.services.store.headPosition()).toBe(head);
  });
});
