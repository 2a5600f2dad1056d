import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Json = Record<string, unknown>;
type Product = { id: string; version_number: number; status: string; published_at: number | null; family: { id: string; name: string; lookup_key: string } | null; features: Array<{ id: string; name: string; description: string | null; value: unknown }>; plans: Json[] };
type Page<T> = { data: T[]; meta: { total: number } };

const product = (key: string, over: Json = {}) => ({
  key,
  name: key,
  family: { lookup_key: 'photo', name: 'Photo' },
  features: [
    { id: 'storage', name: 'Storage', description: 'Space for photos', value: key === 'photo-pro' ? 100 : 10 },
    { id: 'support', name: 'Support', value: true },
  ],
  plans: [{ name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] }],
  ...over,
});

describe('families and features edited apart from their products', () => {
  let server: TestServer;
  let owner: ManageClient;
  let member: ManageClient;
  let stranger: ManageClient;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    server = await startTestServer();
    const person = await signedInPerson(server);
    owner = person.client;
    member = (await signedInPerson(server, { organizationId: person.organizationId, role: 'member' })).client;
    stranger = (await signedInPerson(server)).client;
    for (const key of ['photo-basic', 'photo-pro']) ids[key] = (await owner.json<Product>('POST', '/manage/api/products', product(key))).body.id;
    ids.video = (await owner.json<Product>('POST', '/manage/api/products', product('video', { family: { lookup_key: 'video', name: 'Video' }, features: [{ id: 'storage', name: 'Storage', value: 5 }, { id: 'hdr', name: 'HDR', value: true }] }))).body.id;
    await owner.json('POST', `/manage/api/products/${ids['photo-pro']}/publish`);
    await owner.json('POST', `/manage/api/products/${ids['photo-basic']}/archive`);
    // Another organization uses the same lookup_key and feature id.
    await stranger.json('POST', '/manage/api/products', product('theirs'));
    await server.settle();
  });
  afterAll(() => server.close({ remove: true }));

  it('lists the families and features the products name, with how many products name each', async () => {
    const families = await member.json<Page<Json>>('GET', '/manage/api/families');
    expect(families.status).toBe(200);
    expect(families.body.data).toEqual([
      { lookup_key: 'photo', id: 'fam_photo', name: 'Photo', products_count: 2 },
      { lookup_key: 'video', id: 'fam_video', name: 'Video', products_count: 1 },
    ]);
    expect(families.body.meta).toMatchObject({ total: 2 });
    const features = await member.json<Page<Json>>('GET', '/manage/api/features?per_page=1&page=3');
    expect(features.body).toMatchObject({ data: [{ id: 'support', name: 'Support', description: null, products_count: 2 }], meta: { total: 3 } });
  });

  it('renames a family in each product that names it (a new version each, status and publication kept), with the import\'s command', async () => {
    const before = await member.json<Product>('GET', `/manage/api/products/${ids['photo-pro']}`);
    const renamed = await member.json<{ lookup_key: string; name: string; products: Array<{ id: string; version_number: number; changed: boolean }> }>('PUT', '/manage/api/families/photo', { name: 'Photography' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Photography');
    expect(renamed.body.products.map((p) => [p.id, p.changed]).sort()).toEqual([[ids['photo-basic'], true], [ids['photo-pro'], true]].sort());
    // Answered from the commands: the same again changes nothing.
    const again = await member.json<{ products: Array<{ changed: boolean }> }>('PUT', '/manage/api/families/photo', { name: 'Photography' });
    expect(again.body.products.map((p) => p.changed)).toEqual([false, false]);

    await server.settle();
    const pro = (await member.json<Product>('GET', `/manage/api/products/${ids['photo-pro']}`)).body;
    expect(pro).toMatchObject({ family: { id: 'fam_photo', lookup_key: 'photo', name: 'Photography' }, version_number: before.body.version_number + 1, status: 'active', published_at: before.body.published_at });
    expect(pro.plans).toEqual(before.body.plans);
    expect((await member.json<Product>('GET', `/manage/api/products/${ids['photo-basic']}`)).body).toMatchObject({ status: 'archived', family: { name: 'Photography' } });
    expect((await member.json<Product>('GET', `/manage/api/products/${ids.video}`)).body.family).toMatchObject({ name: 'Video' });
    const events = await server.services.store.readAll({ after: null, limit: 100_000, streamPrefixes: ['product-'] });
    expect(events.filter((e) => e.type === 'ProductDetailsChanged').every((e) => (e.metadata.actor as { type: string }).type === 'user')).toBe(true);
    // The other organization's family of the same lookup_key is untouched.
    expect((await stranger.json<Page<Json>>('GET', '/manage/api/families')).body.data).toEqual([expect.objectContaining({ lookup_key: 'photo', name: 'Photo' })]);
    expect((await member.json<Page<Json>>('GET', '/manage/api/families')).body.data[0]).toMatchObject({ name: 'Photography', products_count: 2 });
  });

  it("sets a feature's name and description in every product that lists it, each keeping its value", async () => {
    const edited = await member.json<{ products: Array<{ id: string; changed: boolean }> }>('PUT', '/manage/api/features/storage', { name: 'Cloud storage', description: 'GB in the cloud' });
    expect(edited.status).toBe(200);
    expect(edited.body.products).toHaveLength(3);
    await server.settle();
    const values = [];
    for (const key of ['photo-basic', 'photo-pro', 'video']) {
      const p = (await member.json<Product>('GET', `/manage/api/products/${ids[key]}`)).body;
      const storage = p.features.find((f) => f.id === 'storage')!;
      expect(storage).toMatchObject({ name: 'Cloud storage', description: 'GB in the cloud' });
      values.push(storage.value);
    }
    expect(values).toEqual([10, 100, 5]);
    // Left out, the description stays as each product has it.
    await member.json('PUT', '/manage/api/features/storage', { name: 'Storage' });
    await server.settle();
    expect((await member.json<Product>('GET', `/manage/api/products/${ids.video}`)).body.features[0]).toMatchObject({ name: 'Storage', description: 'GB in the cloud' });
    expect((await stranger.json<Page<Json>>('GET', '/manage/api/features')).body.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'storage', name: 'Storage', description: 'Space for photos' })]));
  });

  it("refuses bad input and answers another organization's or an unknown family or feature alike", async () => {
    const head = await server.services.store.headPosition();
    expect((await member.json<{ errors: Json }>('PUT', '/manage/api/families/photo', { name: '' })).body.errors).toHaveProperty('name');
    expect((await member.json('PUT', '/manage/api/families/photo', { name: 'X', extra: 1 })).status).toBe(422);
    expect((await member.json('PUT', '/manage/api/families/-bad', { name: 'X' })).status).toBe(422);
    expect((await member.json('PUT', '/manage/api/features/storage', { name: 'X', description: 'x'.repeat(2001) })).status).toBe(422);
    expect((await member.json('GET', '/manage/api/families?per_page=0')).status).toBe(422);
    expect(await server.services.store.headPosition()).toBe(head);
    // The stranger's organization has no video family and no products of ours.
    const foreign = await stranger.json('PUT', '/manage/api/families/video', { name: 'Mine' });
    expect(foreign.status).toBe(404);
    expect(foreign).toEqual(await stranger.json('PUT', '/manage/api/families/no-such-family', { name: 'Mine' }));
    const foreignFeature = await stranger.json('PUT', '/manage/api/features/hdr', { name: 'Mine' });
    expect(foreignFeature.status).toBe(404);
    expect(foreignFeature).toEqual(await stranger.json('PUT', '/manage/api/features/no-such-feature', { name: 'Mine' }));
    expect(await server.services.store.headPosition()).toBe(head);
    expect((await server.fetch('/manage/api/families')).status).toBe(401);
  });

  it('follows a product that moves to another family or drops a feature; a family no product names is gone', async () => {
    const { key: _key, ...edit } = product('video-pro', { family: { lookup_key: 'video', name: 'Video' }, features: [] });
    expect((await owner.json('PUT', `/manage/api/products/${ids['photo-pro']}`, edit)).status).toBe(200);
    const { key: _k, ...basic } = product('photo-basic', { family: { lookup_key: 'video', name: 'Video' } });
    expect((await owner.json('PUT', `/manage/api/products/${ids['photo-basic']}`, basic)).status).toBe(200);
    await server.settle();
    expect((await owner.json<Page<Json>>('GET', '/manage/api/families')).body.data).toEqual([expect.objectContaining({ lookup_key: 'video', products_count: 3 })]);
    const features = (await owner.json<Page<Json>>('GET', '/manage/api/features')).body.data;
    expect(features.map((f) => [f.id, f.products_count])).toEqual([['hdr', 1], ['storage', 2], ['support', 1]]);
    expect((await owner.json('PUT', '/manage/api/families/photo', { name: 'Gone' })).status).toBe(404);
  });
});
