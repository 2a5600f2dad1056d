import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendOneByOne } from '../../platform/eventStore/appendOneByOne.ts';
import type { SequenceImportResult } from '../../modules/automation/automationImport.ts';
import { archiveProduct, type ProductWriteResult } from '../../modules/catalog/productCommands.ts';
import { archiveOffer, loadOffer } from '../../modules/checkout/offerCommands.ts';
import type { OfferImportResult } from '../../modules/checkout/offerImport.ts';
import type { EventStore } from '../../platform/eventStore/eventStore.ts';
import { ImportValidationError, runImport, type ImportResult } from '../../app/import/importFile.ts';
import { productStream } from '../../modules/catalog/domain/product.ts';
import { SEQUENCES, TRIGGERS, type SequenceDoc, type TriggerDoc } from '../../modules/automation/automationProjection.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

const theme = { primary_color: '#7c3aed' };
const pages = [{ id: 'pay', type: 'checkout', title: 'Join', blocks: [{ type: 'price' }] }];

/** The file of the report: a product with two offers, critique-monthly second (offers[1]). */
const critiqueFile = (description: string, offers = ['critique-intro', 'critique-monthly']) => ({
  products: [
    {
      key: 'critique-club',
      display_name: 'Critique club',
      description,
      published: true,
      plans: [{ name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] }],
    },
  ],
  offers: offers.map((slug) => ({ slug, name: slug, product: 'critique-club', plan: 'monthly', theme, pages, published: true })),
});

/** Every kind of thing an import writes, slugs (global) made unique by `tag`. */
const fullFile = (tag: string, now: number) => ({
  products: ['a', 'b'].map((k) => ({
    key: `prod-${k}`,
    display_name: `Product ${k}`,
    plans: [
      { name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1000 }] },
      { name: 'yearly', display_name: 'Yearly', renew_interval: 'P1Y', currency_code: 'EUR', charges: [{ amount: 9000 }] },
    ],
  })),
  offers: ['a', 'b'].map((k) => ({ slug: `${tag}-offer-${k}`, name: `Offer ${k}`, product: `prod-${k}`, plan: 'monthly', theme, pages, published: true })),
  promos: [{ slug: `${tag}-promo`, name: 'Launch', starts_at: now - 10, ends_at: now + 3600, tiers: [{ name: 'Early', discount_percent: 10 }] }],
  sequences: [
    {
      key: 'signups',
      name: 'Sign-ups',
      actions: [{ type: 'send_webhook', url: 'https://crm.example.com/hook', payload: '{}' }],
      triggers: [
        { key: 'form', name: 'Form' },
        { key: 'shop', name: 'Shop', enabled: false },
      ],
    },
  ],
});

describe('an import applies everything or nothing', { timeout: 120_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  }, 60_000);
  afterAll(() => server?.close({ remove: true }));

  const importInto = (organizationId: string, file: unknown, store: EventStore = server.services.store): Promise<ImportResult> =>
    runImport(
      { command: { ...server.cliContext(organizationId), store }, organizationId, catchUp: server.settle },
      file,
    );

  const refusal = async (work: Promise<unknown>): Promise<ImportValidationError> => {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ImportValidationError);
    return error as ImportValidationError;
  };

  it('the report: an archived offer in the file refuses the whole file, the archived product stays as it was, and the refusal says where and how to go on', async () => {
    const { organizationId } = await server.identity();
    const first = await importInto(organizationId, critiqueFile('Monthly critiques of your work.'));
    const [offerIntro, offerMonthly] = first.sections.offers as OfferImportResult[];
    const [product] = first.sections.products as ProductWriteResult[];
    await archiveOffer(server.cliContext(organizationId), offerMonthly!.uuid);
    await archiveProduct(server.cliContext(organizationId), product!.product_id);
    const head = await server.services.store.headPosition();
    const productEvents = await server.services.store.readStream(productStream(product!.product_id));

    const refused = await importInto(organizationId, critiqueFile('Two critiques a month, live.')).then(
      () => null,
      (e: unknown) => e,
    );
    // Nothing written: before, the log gained ProductDetailsChanged and ProductRestored here.
    expect(await server.services.store.readStream(productStream(product!.product_id))).toEqual(productEvents);
    expect(await server.services.store.headPosition()).toBe(head);
    expect(refused).toBeInstanceOf(ImportValidationError);
    const error = refused as ImportValidationError;
    expect(error.message).toMatch(/nothing was imported/);
    expect(error.issues).toEqual([
      {
        path: 'offers[1].slug',
        message:
          'Offer critique-monthly: An archived offer cannot be published again. An archived offer is final: drop it from the file or give it a new slug.',
      },
    ]);

    // The CLI as the report ran it: exit 1, the path and the way on in its output, nothing written.
    const path = join(server.dataDir, 'critique.json');
    writeFileSync(path, JSON.stringify(critiqueFile('Two critiques a month, live.')));
    const run = await runCli(['import', path, '--org', organizationId], { DATA_DIR: server.dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('offers[1].slug: Offer critique-monthly: An archived offer cannot be published again.');
    expect(run.stderr).toContain('drop it from the file or give it a new slug');
    expect(await server.services.store.headPosition()).toBe(head);

    // Going on as told: without the archived offer the file imports, and the product takes its change.
    const next = await importInto(organizationId, critiqueFile('Two critiques a month, live.', ['critique-intro']));
    expect((next.sections.products as ProductWriteResult[])[0]).toMatchObject({ changed: true });
    const types = (await server.services.store.readStream(productStream(product!.product_id))).slice(productEvents.length).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['ProductRestored', 'ProductDetailsChanged']));
    expect((await loadOffer(server.cliContext(organizationId), offerIntro!.uuid)).status).toBe('published');
    expect((await loadOffer(server.cliContext(organizationId), offerMonthly!.uuid)).status).toBe('archived');
  });

  it('lists every refusal of a file at once, each at its path, across sections', async () => {
    const other = await server.identity();
    const now = Math.floor(Date.now() / 1000);
    await importInto(other.organizationId, fullFile('taken', now));
    const { organizationId } = await server.identity();
    const head = await server.services.store.headPosition();
    const file = fullFile('mine', now);
    file.offers[1]!.slug = 'taken-offer-b';
    file.promos[0]!.slug = 'taken-promo';
    const error = await refusal(importInto(organizationId, file));
    expect(error.issues.map((i) => i.path)).toEqual(['offers[1].slug', 'promos[0].slug']);
    expect(error.issues[0]!.message).toMatch(/^Offer taken-offer-b: The slug 'taken-offer-b' is already taken\. .*another slug/);
    expect(error.issues[1]!.message).toMatch(/^Promo taken-promo: The promo slug 'taken-promo' is taken\. .*another slug/);
    expect(await server.services.store.headPosition()).toBe(head);
  });

  /**
   * EventStoreDB has no transaction across streams: its appendMany (appendOneByOne) writes stream
   * after stream. Here a process dies after each possible prefix of a first import; running the
   * same file again must complete it, with nothing twice, and a third run must find nothing to do.
   */
  it('one stream after another (as on EventStoreDB): a run stopped after any append is completed by running the file again', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = server.services.store;
    const crashingAfter = (done: number, seen: { streams: number }): EventStore => {
      let appended = 0;
      const append: EventStore['append'] = (stream, events, expected) => {
        if (appended >= done) return Promise.reject(new Error('simulated crash'));
        appended += 1;
        return base.append(stream, events, expected);
      };
      return Object.assign(Object.create(base) as EventStore, {
        atomicAppendMany: false,
        appendMany: (appends: Parameters<EventStore['appendMany']>[0]) => {
          seen.streams = appends.length;
          return appendOneByOne({ append }, appends);
        },
      });
    };

    const seen = { streams: Number.POSITIVE_INFINITY };
    for (let done = 0; done < seen.streams; done++) {
      const { organizationId } = await server.identity();
      const file = fullFile(`crash${done}`, now);
      await expect(importInto(organizationId, file, crashingAfter(done, seen))).rejects.toThrow('simulated crash');
      const completed = await importInto(organizationId, file);
      await server.settle();
      const head = await base.headPosition();
      const again = await importInto(organizationId, file);
      expect(await base.headPosition(), `after ${done} of ${seen.streams} appends`).toBe(head);

      expect((again.sections.products as ProductWriteResult[]).map((p) => p.changed)).toEqual([false, false]);
      expect((again.sections.offers as OfferImportResult[]).map((o) => [o.id, o.published])).toEqual(
        (completed.sections.offers as OfferImportResult[]).map((o) => [o.id, true]),
      );
      for (const offer of again.sections.offers as OfferImportResult[]) {
        expect((await loadOffer(server.cliContext(organizationId), offer.uuid)).status).toBe('published');
      }
      const sequences = await server.services.readStore.find<SequenceDoc>(SEQUENCES, { filter: { organization_id: organizationId } });
      expect(sequences.map((s) => s.key)).toEqual(['signups']);
      const triggers = await server.services.readStore.find<TriggerDoc>(TRIGGERS, { filter: { sequence_id: sequences[0]!.sequence_id } });
      expect(triggers.map((t) => [t.key, t.enabled]).sort()).toEqual([
        ['form', true],
        ['shop', false],
      ]);
      const [sequence] = again.sections.sequences as SequenceImportResult[];
      expect(sequence).toMatchObject({ created: false, changed: false, triggers: [{ created: false }, { created: false }] });
    }
    expect(seen.streams).toBeGreaterThan(10);
  });
});
