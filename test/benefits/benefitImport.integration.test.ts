import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockApp, importer, type ClockApp } from '../subscriptions/clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the benefits section of an import file', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    await harness.offerOf(seller.organizationId, 'zine', 'one_time');
  });
  afterAll(async () => harness.close());

  const importFile = (file: unknown) => importer(harness, seller.organizationId).importFile(file);
  const refusal = (file: unknown) => importer(harness, seller.organizationId).refusal(file);
  const list = async () => {
    await harness.settle();
    return (await harness.call('GET', '/api/benefits', { token: seller.token })).body.data as Body[];
  };
  const file = (description = 'The PDF') => ({
    benefits: [
      { key: 'pdf', product: 'zine-product', type: 'file', description, properties: { files: ['file_zine1'] } },
      { key: 'key', product: 'zine-product', type: 'license_key', description: 'Reader key', properties: { prefix: 'ZN', activation_limit: 2 } },
    ],
  });

  it('makes benefits on products named by key; a second run changes only what changed', async () => {
    const first = await importFile(file());
    expect(JSON.stringify(first)).toContain('benefit');
    const made = await list();
    expect(made).toHaveLength(2);
    const pdf = made.find((b) => b.type === 'file')!;
    expect(pdf).toMatchObject({ description: 'The PDF', properties: { files: ['file_zine1'] } });
    expect(made.find((b) => b.type === 'license_key')).toMatchObject({ properties: { prefix: 'ZN', activation_limit: 2, expires_after_days: null, bound_to: 'perpetual' } });

    await importFile(file());
    const again = await list();
    expect(again.map((b) => b.id).sort()).toEqual(made.map((b) => b.id).sort());
    const stream = await harness.services.store.readStream(`product_benefits-${pdf.product_id}`);
    expect(stream.map((e) => e.type)).toEqual(['BenefitCreated', 'BenefitCreated']);

    await importFile(file('The PDF, 2nd edition'));
    expect((await list()).find((b) => b.id === pdf.id)!.description).toBe('The PDF, 2nd edition');
  });

  it('refuses an unknown product, a changed type, duplicate keys and bad properties, writing nothing', async () => {
    const before = await harness.services.store.headPosition();
    expect(await refusal({ benefits: [{ key: 'x', product: 'nope', type: 'file', description: 'x', properties: { files: ['file_a'] } }] })).toEqual({
      'benefits[0].product': ['No product with key nope in this organization.'],
    });
    expect(await refusal({ benefits: [{ key: 'pdf', product: 'zine-product', type: 'license_key', description: 'x' }] })).toEqual({ 'benefits[0].type': [expect.stringContaining('type cannot change')] });
    const duplicate = await refusal({ benefits: [file().benefits[0], file().benefits[0]] });
    expect(Object.keys(duplicate)).toEqual(['benefits[1].key']);
    const bad = await refusal({ benefits: [{ key: 'y', product: 'zine-product', type: 'file', description: 'x', properties: { files: ['nope'] } }] });
    expect(Object.keys(bad)).toEqual(['benefits[0].properties.files[0]']);
    expect(await harness.services.store.headPosition()).toBe(before);
  });
});
