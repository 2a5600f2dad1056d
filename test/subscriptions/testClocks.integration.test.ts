import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClockStream } from '../../modules/subscriptions/domain/testClock.ts';
import { TEST_CLOCK_ADVANCE_CHECKPOINT } from '../../modules/subscriptions/jobs/testClockAdvance.ts';
import { clockApp, waitFor, type ClockApp } from './clockApp.ts';

const T0 = Date.UTC(2027, 0, 31, 12) / 1000;

describe('test clocks', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    other = await harness.identity();
  });
  afterAll(async () => harness.close());

  const create = (body: unknown, token = seller.token) => harness.call('POST', '/api/test_clocks', { token, body });
  const get = (id: string, token = seller.token) => harness.call('GET', `/api/test_clocks/${id}`, { token });
  const advance = (id: string, frozenTime: unknown, token = seller.token) => harness.call('POST', `/api/test_clocks/${id}/advance`, { token, body: { frozen_time: frozenTime } });

  it("creates a clock as Stripe's, and reads it back alone and in the list", async () => {
    const created = await create({ frozen_time: T0, name: 'Annual renewals' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^clock_[A-Za-z0-9]{24}$/),
      object: 'test_helpers.test_clock',
      frozen_time: T0,
      status: 'ready',
      name: 'Annual renewals',
      livemode: false,
      created_at: expect.any(Number),
    });
    const read = await get(created.body.id);
    expect(read).toEqual({ status: 200, body: created.body });
    const list = await harness.call('GET', '/api/test_clocks', { token: seller.token });
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(created.body.id);
    const unnamed = await create({ frozen_time: T0 });
    expect(unnamed.body.name).toBeNull();
  });

  it('refuses bad input with 422 and an anonymous caller with 401', async () => {
    for (const body of [{}, { frozen_time: -1 }, { frozen_time: 1.5 }, { frozen_time: '1700000000' }, { frozen_time: T0, extra: 1 }]) {
      const refused = await create(body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.body.errors).toBeDefined();
    }
    expect((await harness.call('POST', '/api/test_clocks', { body: { frozen_time: T0 } })).status).toBe(401);
    expect((await get('clock_unknown')).status).toBe(404);
  });

  it("answers another organization's clock as unknown, and keeps it out of their list", async () => {
    const { body: clock } = await create({ frozen_time: T0 });
    expect((await get(clock.id, other.token)).status).toBe(404);
    expect((await advance(clock.id, T0 + 60, other.token)).status).toBe(404);
    expect((await harness.call('DELETE', `/api/test_clocks/${clock.id}`, { token: other.token })).status).toBe(404);
    const list = await harness.call('GET', '/api/test_clocks', { token: other.token });
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(clock.id);
    expect((await get(clock.id)).body.status).toBe('ready');
  });

  it('moves only forward, one advance at a time, and is ready once the advance job finished it', async () => {
    const { body: clock } = await create({ frozen_time: T0 });
    for (const to of [T0, T0 - 1]) {
      const refused = await advance(clock.id, to);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('test_clock_backwards');
    }
    const month = T0 + 28 * 86_400;
    const advanced = await advance(clock.id, month);
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({ id: clock.id, frozen_time: month, status: 'advancing' });
    // No advance job runs yet (a service that stopped mid-advance): the clock stays advancing.
    expect((await get(clock.id)).body).toMatchObject({ status: 'advancing', frozen_time: month });
    const again = await advance(clock.id, month + 60);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('test_clock_advancing');

    await harness.startAdvanceJob();
    const ready = await waitFor('the clock to be ready', async () => (await get(clock.id)).body, (b) => b.status === 'ready');
    expect(ready.frozen_time).toBe(month);
    expect((await advance(clock.id, month + 86_400)).status).toBe(200);
    await waitFor('the second advance', async () => (await get(clock.id)).body, (b) => b.status === 'ready' && b.frozen_time === month + 86_400);
    await harness.stopJobs();
  });

  it('finishes each advance once, however often the job sees it', async () => {
    const { body: clock } = await create({ frozen_time: T0 });
    await advance(clock.id, T0 + 3600);
    await harness.startAdvanceJob();
    await waitFor('the clock to be ready', async () => (await get(clock.id)).body, (b) => b.status === 'ready');
    await harness.stopJobs();
    // From the start of the log again, as after a lost checkpoint.
    await harness.services.readStore.reset(TEST_CLOCK_ADVANCE_CHECKPOINT, []);
    expect(await harness.services.readStore.readCheckpoint(TEST_CLOCK_ADVANCE_CHECKPOINT)).toBeNull();
    await harness.startAdvanceJob();
    const head = await harness.services.store.headPosition();
    await waitFor('the job to pass the head', () => harness.services.readStore.readCheckpoint(TEST_CLOCK_ADVANCE_CHECKPOINT), (at) => at !== null && head !== null && at >= head);
    await harness.stopJobs();
    const events = await harness.services.store.readStream(testClockStream(clock.id));
    expect(events.map((e) => e.type)).toEqual(['TestClockCreated', 'TestClockAdvanceStarted', 'TestClockAdvanced']);
  });

  it('deletes a clock: gone from reads, and nothing more can be done with it', async () => {
    const { body: clock } = await create({ frozen_time: T0 });
    const deleted = await harness.call('DELETE', `/api/test_clocks/${clock.id}`, { token: seller.token });
    expect(deleted).toEqual({ status: 200, body: { id: clock.id, object: 'test_helpers.test_clock', deleted: true } });
    expect((await get(clock.id)).status).toBe(404);
    expect((await advance(clock.id, T0 + 60)).status).toBe(404);
    expect((await harness.call('DELETE', `/api/test_clocks/${clock.id}`, { token: seller.token })).status).toBe(404);
    const list = await harness.call('GET', '/api/test_clocks', { token: seller.token });
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(clock.id);
  });
});
