import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { notFound, RouteKey } from '../../../platform/http/index.ts';
import { endClockSubscriptions } from '../billing.ts';
import { advanceTestClock, createTestClock, deleteTestClock, loadTestClock } from '../testClockCommands.ts';
import { TEST_CLOCKS, type TestClockDoc } from '../testClockProjection.ts';
import { bearer, manage, type Access } from './subscriptionRoutes.ts';
import { FrozenTime, TestClockSchema, type TestClock } from './subscriptionSchemas.ts';

const Params = z.object({ id: RouteKey });

const present = (c: Pick<TestClockDoc, 'id' | 'frozen_time' | 'name' | 'created_at'> & { status: string }): TestClock => ({
  id: c.id,
  object: 'test_helpers.test_clock',
  frozen_time: c.frozen_time,
  status: c.status === 'advancing' ? 'advancing' : 'ready',
  name: c.name,
  livemode: false,
  created_at: c.created_at,
});

/**
 * Test clocks (bearer, organization-scoped), as Stripe's: test-mode subscriptions made on a clock
 * live in its time, and advancing it makes what falls due happen (the advance job does it).
 */
export const testClockRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, bearer);

/** The same for the dashboard (session cookie; writes need the CSRF token). */
export const testClockManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, manage);

async function routes(app: Parameters<FastifyPluginAsyncZod>[0], services: Services, access: Access): Promise<void> {
  const { prefix, schema: routeSchema, errors } = access;
  const authenticate = access.onRequest(app);

  app.post(
    `${prefix}/test_clocks`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Create a test clock at a frozen time; attach it to a test-mode checkout session (test_clock) to bill the subscription it makes in its time.',
        body: z.object({ frozen_time: FrozenTime, name: z.string().trim().min(1).max(300).optional() }).strict(),
        response: { 201: TestClockSchema, ...errors },
      },
    },
    async (request, reply) => {
      const organizationId = access.organizationOf(request);
      const clock = await createTestClock(access.context(services, request), { organizationId, name: request.body.name ?? null, frozenTime: request.body.frozen_time });
      return reply.code(201).send(present(clock));
    },
  );

  app.get(
    `${prefix}/test_clocks`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: "The organization's test clocks, newest first.", response: { 200: z.object({ data: z.array(TestClockSchema) }), ...errors } },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      const docs = await services.readStore.find<TestClockDoc>(TEST_CLOCKS, { filter: { organization_id: organizationId }, sort: [['created_at', -1]] });
      return { data: docs.map(present) };
    },
  );

  app.get(
    `${prefix}/test_clocks/:id`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: 'One test clock: advancing until what its last advance made due has happened, then ready.', params: Params, response: { 200: TestClockSchema, ...errors } },
    },
    async (request) => {
      // From the clock's own stream, not the read model: right after an advance it says advancing,
      // and ready only once the advance has happened, however far the projections lag.
      const clock = await loadTestClock(services, request.params.id);
      if (!clock || clock.status === 'deleted' || clock.organization_id !== access.organizationOf(request)) throw notFound('Test clock');
      return present(clock);
    },
  );

  app.post(
    `${prefix}/test_clocks/:id/advance`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Move the clock forward to frozen_time: trial ends, renewals, retries and cancellations due by then happen. Answers at once with status advancing; 409 while an advance is under way.',
        params: Params,
        body: z.object({ frozen_time: FrozenTime }).strict(),
        response: { 200: TestClockSchema, ...errors },
      },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      return present(await advanceTestClock(access.context(services, request), organizationId, request.params.id, request.body.frozen_time));
    },
  );

  app.delete(
    `${prefix}/test_clocks/:id`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Delete the test clock; the subscriptions on it end.',
        params: Params,
        response: { 200: z.object({ id: z.string(), object: z.literal('test_helpers.test_clock'), deleted: z.literal(true) }), ...errors },
      },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      const clock = await deleteTestClock(access.context(services, request), organizationId, request.params.id);
      // The advance job does it again for a delete whose request died here (it is idempotent).
      await endClockSubscriptions(services, clock.id, clock.frozen_time);
      return { id: clock.id, object: 'test_helpers.test_clock' as const, deleted: true as const };
    },
  );
}
