import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { commandContext, ErrorSchema, findOrAwaitStream, notFound, protectedRoute, RouteKey } from '../../../platform/http/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { endClockSubscriptions } from '../billing.ts';
import { MAX_FROZEN_TIME, testClockStream } from '../domain/testClock.ts';
import { advanceTestClock, createTestClock, deleteTestClock, type KnownTestClock } from '../testClockCommands.ts';
import { TEST_CLOCKS, type TestClockDoc } from '../testClockProjection.ts';

const FrozenTime = z.number().int().min(0).max(MAX_FROZEN_TIME).describe('Unix seconds.');

export const TestClockSchema = z.object({
  id: z.string(),
  object: z.literal('test_helpers.test_clock'),
  frozen_time: FrozenTime.describe("The clock's time: its subscriptions live at it (Unix seconds)."),
  status: z.enum(['ready', 'advancing']).describe('advancing while what the last advance made due is still happening; ready once it all happened.'),
  name: z.string().nullable(),
  livemode: z.literal(false),
  created_at: z.number().int(),
});
export type TestClock = z.infer<typeof TestClockSchema>;

const Params = z.object({ id: RouteKey });
const errors = { 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, 422: ErrorSchema };

const present = (c: Pick<TestClockDoc, 'id' | 'frozen_time' | 'name' | 'created_at'> & { status: string }): TestClock => ({
  id: c.id,
  object: 'test_helpers.test_clock',
  frozen_time: c.frozen_time,
  status: c.status === 'advancing' ? 'advancing' : 'ready',
  name: c.name,
  livemode: false,
  created_at: c.created_at,
});

const presentState = (c: KnownTestClock) => present(c);

/**
 * Test clocks (bearer, organization-scoped), as Stripe's: test-mode subscriptions made on a clock
 * live in its time, and advancing it makes what falls due happen (the advance job does it).
 */
export const testClockRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const own = async (organizationId: string, id: string, reply: FastifyReply): Promise<TestClockDoc> => {
    const doc = await findOrAwaitStream(services, reply, {
      stream: testClockStream(id),
      find: () => services.readStore.get<TestClockDoc>(TEST_CLOCKS, id),
      organizationId,
    });
    if (!doc || doc.organization_id !== organizationId) throw notFound('Test clock');
    return doc;
  };

  app.post(
    '/api/test_clocks',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'Create a test clock at a frozen time; attach it to a test-mode checkout session (test_clock) to bill the subscription it makes in its time.',
        body: z.object({ frozen_time: FrozenTime, name: z.string().trim().min(1).max(300).optional() }).strict(),
        response: { 201: TestClockSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { organizationId } = requireAuth(request);
      const clock = await createTestClock(commandContext(services, request), { organizationId, name: request.body.name ?? null, frozenTime: request.body.frozen_time });
      return reply.code(201).send(presentState(clock));
    },
  );

  app.get(
    '/api/test_clocks',
    {
      onRequest: app.authenticate,
      schema: { ...protectedRoute, summary: "The organization's test clocks, newest first.", response: { 200: z.object({ data: z.array(TestClockSchema) }), ...errors } },
    },
    async (request) => {
      const { organizationId } = requireAuth(request);
      const docs = await services.readStore.find<TestClockDoc>(TEST_CLOCKS, { filter: { organization_id: organizationId }, sort: [['created_at', -1]] });
      return { data: docs.map(present) };
    },
  );

  app.get(
    '/api/test_clocks/:id',
    {
      onRequest: app.authenticate,
      schema: { ...protectedRoute, summary: 'One test clock: advancing until what its last advance made due has happened, then ready.', params: Params, response: { 200: TestClockSchema, ...errors } },
    },
    async (request, reply) => present(await own(requireAuth(request).organizationId, request.params.id, reply)),
  );

  app.post(
    '/api/test_clocks/:id/advance',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'Move the clock forward to frozen_time: trial ends, renewals, retries and cancellations due by then happen. Answers at once with status advancing; 409 while an advance is under way.',
        params: Params,
        body: z.object({ frozen_time: FrozenTime }).strict(),
        response: { 200: TestClockSchema, ...errors },
      },
    },
    async (request) => {
      const { organizationId } = requireAuth(request);
      return presentState(await advanceTestClock(commandContext(services, request), organizationId, request.params.id, request.body.frozen_time));
    },
  );

  app.delete(
    '/api/test_clocks/:id',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'Delete the test clock; the subscriptions on it end.',
        params: Params,
        response: { 200: z.object({ id: z.string(), object: z.literal('test_helpers.test_clock'), deleted: z.literal(true) }), ...errors },
      },
    },
    async (request) => {
      const { organizationId } = requireAuth(request);
      const clock = await deleteTestClock(commandContext(services, request), organizationId, request.params.id);
      // The advance job does it again for a delete whose request died here (it is idempotent).
      await endClockSubscriptions(services, clock.id, clock.frozen_time);
      return { id: clock.id, object: 'test_helpers.test_clock' as const, deleted: true as const };
    },
  );
};
