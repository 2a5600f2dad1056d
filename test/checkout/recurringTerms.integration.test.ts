import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportValidationError, runImport } from '../../app/import/importFile.ts';
import { OFFERS, type OfferDoc } from '../../modules/checkout/checkoutProjection.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

/*
 * What a buyer of a recurring plan is told before paying, and the offer's trial_period_days that
 * changes it: through the import, the management routes, the hosted page and the live preview.
 */

const NOW = Date.parse('2026-11-27T12:00:00Z');
const theme = { primary_color: '#0f766e' };
const pages = [{ id: 'pay', type: 'checkout', title: 'Checkout' }];
const offer = (slug: string, plan: string, extra: Record<string, unknown> = {}) => ({ slug, name: slug, product: 'club', plan, theme, pages, published: true, ...extra });

type Refusal = { message: string; errors: Record<string, string[]> };
type ManagedOffer = { id: string; uuid: string; trial_period_days: number | null };

/** The text of the page's #co-recurring paragraph (the server's words, before the script's). */
const recurringText = (html: string) => /<p class="co-note co-recurring" id="co-recurring">([^<]*)<\/p>/.exec(html)?.[1] ?? null;

describe('the terms of a recurring plan at checkout, and offer trials', () => {
  let server: TestServer;
  let owner: ManageClient;
  let organizationId: string;
  const clock = manualClock(NOW);
  const importFile = (file: Record<string, unknown>) =>
    runImport({ command: server.cliContext(organizationId), organizationId, catchUp: () => server.settle() }, file);
  const page = async (slug: string) => {
    const response = await server.fetch(`/checkout/${slug}`);
    expect(response.status).toBe(200);
    return recurringText(await response.text());
  };

  beforeAll(async () => {
    server = await startTestServer({ clock });
    const person = await signedInPerson(server);
    owner = person.client;
    organizationId = person.organizationId;
    await importFile({
      products: [
        {
          key: 'club',
          published: true,
          plans: [
            { name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 500 }] },
            { name: 'annual-term', display_name: 'Annual, monthly', renew_interval: 'P1Y', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 400 }] },
            { name: 'quarterly', display_name: 'Quarterly', renew_interval: 'P3M', currency_code: 'USD', charges: [{ amount: 1200 }] },
            { name: 'once', display_name: 'Once', type: 'one_time', currency_code: 'EUR', charges: [{ amount: 900 }] },
          ],
        },
      ],
      offers: [
        offer('club-monthly', 'monthly'),
        offer('club-trial', 'monthly', { trial_period_days: 14 }),
        offer('club-one-day', 'monthly', { trial_period_days: 1 }),
        offer('club-annual-term', 'annual-term'),
        offer('club-quarterly', 'quarterly'),
        offer('club-once', 'once'),
      ],
    });
    await server.settle();
  });
  afterAll(() => server.close({ remove: true }));

  it('states today\'s charge, the price per invoice interval and the first renewal date', async () => {
    expect(await page('club-monthly')).toBe('€5.00 today, then €5.00 per month from 27 December 2026, until you cancel.');
    // A yearly term billed monthly is charged per month.
    expect(await page('club-annual-term')).toBe('€4.00 today, then €4.00 per month from 27 December 2026, until you cancel.');
    expect(await page('club-quarterly')).toBe('$12.00 today, then $12.00 every 3 months from 27 February 2027, until you cancel.');
    expect(await page('club-once')).toBeNull();
  });

  it('states the trial, then the first charge at its end', async () => {
    expect(await page('club-trial')).toBe('Free for 14 days, then €5.00 per month from 11 December 2026, until you cancel.');
    expect(await page('club-one-day')).toBe('Free for 1 day, then €5.00 per month from 28 November 2026, until you cancel.');
  });

  it('bills a month-end purchase on the last day of a shorter month, as a subscription does', async () => {
    clock.set(Date.parse('2027-01-31T09:00:00Z'));
    try {
      expect(await page('club-monthly')).toBe('€5.00 today, then €5.00 per month from 28 February 2027, until you cancel.');
      clock.set(Date.parse('2028-01-31T09:00:00Z'));
      expect(await page('club-monthly')).toBe('€5.00 today, then €5.00 per month from 29 February 2028, until you cancel.');
    } finally {
      clock.set(NOW);
    }
  });

  it('leaves the words "today" to the script when a promotion may change today\'s charge', async () => {
    const response = await server.fetch('/checkout/club-monthly?promo=anything');
    expect(recurringText(await response.text())).toBe('Then €5.00 per month from 27 December 2026, until you cancel.');
  });

  it('refuses a trial at import on a plan that is not recurring, and one outside 1 to 730 days, writing nothing', async () => {
    const head = await server.services.store.headPosition();
    let error: unknown;
    try {
      await importFile({
        offers: [
          offer('trial-once', 'once', { trial_period_days: 7 }),
          offer('trial-zero', 'monthly', { trial_period_days: 0 }),
          offer('trial-long', 'monthly', { trial_period_days: 731 }),
          offer('trial-half', 'monthly', { trial_period_days: 1.5 }),
        ],
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ImportValidationError);
    const issues = (error as ImportValidationError).issues;
    expect(issues.map((i) => i.path).sort()).toEqual(['offers[1].trial_period_days', 'offers[2].trial_period_days', 'offers[3].trial_period_days']);
    expect(await server.services.store.headPosition()).toBe(head);

    // The plan's type is read from the catalog once the file's own checks pass.
    error = undefined;
    try {
      await importFile({ offers: [offer('trial-once', 'once', { trial_period_days: 7 })] });
    } catch (e) {
      error = e;
    }
    expect((error as ImportValidationError).issues).toEqual([
      { path: 'offers[0].trial_period_days', message: expect.stringContaining('Plan once is not recurring') },
    ]);
    expect(await server.services.store.headPosition()).toBe(head);
  });

  it('keeps trial_period_days on the offer through the management routes, out of events when absent', async () => {
    const body = (extra: Record<string, unknown> = {}) => ({ ...offer('managed-trial', 'monthly', { published: false }), ...extra });
    const created = await owner.json<ManagedOffer>('POST', '/manage/api/offers', body({ trial_period_days: 30 }));
    expect(created.status).toBe(201);
    expect(created.body.trial_period_days).toBe(30);
    await server.settle();
    expect((await server.services.readStore.get<OfferDoc>(OFFERS, created.body.uuid))?.trial_period_days).toBe(30);

    const removed = await owner.json<ManagedOffer>('PUT', `/manage/api/offers/${created.body.id}`, body());
    expect(removed.body.trial_period_days).toBeNull();
    await server.settle();
    expect((await server.services.readStore.get<OfferDoc>(OFFERS, created.body.uuid))?.trial_period_days).toBeNull();

    const events = (await server.services.store.readStream(`offer-${created.body.uuid}`)).map((e) => [e.type, 'trial_period_days' in (e.data as object) ? (e.data as { trial_period_days: number }).trial_period_days : 'absent']);
    expect(events).toEqual([['OfferCreated', 30], ['OfferUpdated', 'absent']]);

    const before = await server.services.store.headPosition();
    const once = await owner.json<Refusal>('POST', '/manage/api/offers', { ...body({ trial_period_days: 7 }), slug: 'managed-once', plan: 'once' });
    expect(once.status).toBe(422);
    expect(once.body.errors.trial_period_days?.[0]).toContain('Plan once is not recurring');
    for (const bad of [0, 731, 2.5, '14']) {
      const refused = await owner.json<Refusal>('PUT', `/manage/api/offers/${created.body.id}`, body({ trial_period_days: bad }));
      expect(refused.status, String(bad)).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(['trial_period_days']);
    }
    expect(await server.services.store.headPosition()).toBe(before);
  });

  it('states the same terms in the live preview of a draft', async () => {
    const draft = (extra: Record<string, unknown>) => ({ ...offer('draft-offer', 'monthly'), ...extra });
    for (const [extra, words] of [
      [{}, '€5.00 today, then €5.00 per month from 27 December 2026, until you cancel.'],
      [{ trial_period_days: 14 }, 'Free for 14 days, then €5.00 per month from 11 December 2026, until you cancel.'],
    ] as const) {
      const made = await owner.json<{ url: string }>('POST', '/manage/api/offers/preview', draft(extra));
      expect(made.status).toBe(201);
      expect(recurringText(await (await owner.request('GET', made.body.url)).text())).toBe(words);
    }
  });
});
