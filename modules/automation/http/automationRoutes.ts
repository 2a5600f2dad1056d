import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import {
  SAMPLES,
  SAMPLES_KEPT,
  SEQUENCES,
  TRIGGERS,
  WORKFLOWS,
  type SampleDoc,
  type SequenceDoc,
  type TriggerDoc,
  type WorkflowDoc,
} from '../automationProjection.ts';
import { baseUrl, decimalInteger, ErrorSchema, findOrAwaitStream, notFound, protectedRoute } from '../../../platform/http/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { triggerStream } from '../domain/trigger.ts';
import { workflowStream } from '../domain/workflow.ts';


const IntId = decimalInteger(1, Number.MAX_SAFE_INTEGER);

const Sample = z.object({
  id: z.string(),
  method: z.string(),
  payload: z.record(z.string(), z.unknown()),
  query: z.record(z.string(), z.unknown()),
  headers: z.record(z.string(), z.string()),
  received_at: z.number().int(),
  /** A repeat of an earlier request's Idempotency-Key / Webhook-Id: answered as that one was, started nothing. */
  repeated: z.boolean(),
});
const TriggerTest = z.object({
  success: z.boolean(),
  message: z.string(),
  samples: z.array(Sample),
  data: z.object({
    trigger_id: z.number().int(),
    trigger_name: z.string(),
    waiting_for_webhook: z.boolean(),
    /** Null for an event trigger, which starts on `event_type` instead of a request. */
    catch_url: z.string().nullable(),
    /** Only on an event trigger (the spec's shape stays as it is for webhook triggers). */
    event_type: z.string().optional(),
  }),
});
const Step = z.object({
  step: z.number().int(),
  action: z.string(),
  status: z.enum(['running', 'succeeded', 'failed']),
  attempts: z.number().int(),
  result: z.record(z.string(), z.unknown()).nullable(),
  started_at: z.number().int(),
  completed_at: z.number().int().nullable(),
});
export const Workflow = z.object({
  workflow_id: z.number().int(),
  trigger_id: z.number().int(),
  sequence_id: z.number().int(),
  status: z.enum(['running', 'completed', 'failed']),
  step_count: z.number().int(),
  steps: z.array(Step),
  started_at: z.number().int(),
  finished_at: z.number().int().nullable(),
});

export const automationRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { readStore } = services;

  app.get(
    '/api/automation/triggers/:trigger_id/test',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'Trigger test: waiting for the first webhook, or the latest received requests as samples.',
        params: z.object({ trigger_id: IntId }),
        response: { 200: TriggerTest, 401: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const triggerId = request.params.trigger_id;
      const trigger = await findOrAwaitStream(services, reply, {
        stream: triggerStream(triggerId),
        find: () => readStore.get<TriggerDoc>(TRIGGERS, String(triggerId)),
        organizationId: auth.organizationId,
      });
      if (!trigger || trigger.organization_id !== auth.organizationId) throw notFound('Trigger');
      const sequence = await readStore.get<SequenceDoc>(SEQUENCES, String(trigger.sequence_id));
      if (!sequence) throw notFound('Trigger');
      const samples = await readStore.find<SampleDoc>(SAMPLES, {
        filter: { trigger_id: trigger.trigger_id },
        sort: [['position', -1]],
        limit: SAMPLES_KEPT,
      });
      const data = {
        trigger_id: trigger.trigger_id,
        trigger_name: trigger.name,
        waiting_for_webhook: samples.length === 0,
        catch_url: trigger.trigger_type === 'event' ? null : `${baseUrl(services, request)}/hooks/catch/${sequence.route_key}/${trigger.route_key}`,
        ...(trigger.event_type ? { event_type: trigger.event_type } : {}),
      };
      if (samples.length === 0) {
        const waiting = trigger.event_type ? `Waiting for the first ${trigger.event_type} event.` : 'Waiting for the first webhook: send a request to the catch URL.';
        return { success: false, message: waiting, samples: [], data };
      }
      return {
        success: true,
        message: `${samples.length} received webhook${samples.length === 1 ? '' : 's'} available as samples.`,
        samples: samples.map((s) => ({
          id: s.event_id ?? String(s.position),
          method: s.method,
          payload: s.payload,
          query: s.query,
          headers: s.headers,
          received_at: s.received_at,
          repeated: s.repeated ?? false,
        })),
        data,
      };
    },
  );

  app.get(
    '/api/automation/workflows/:workflow_id',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'A workflow run: its status and the result of each step.',
        params: z.object({ workflow_id: IntId }),
        response: { 200: Workflow, 401: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const workflowId = request.params.workflow_id;
      const doc = await findOrAwaitStream(services, reply, {
        stream: workflowStream(workflowId),
        find: () => readStore.get<WorkflowDoc>(WORKFLOWS, String(workflowId)),
        organizationId: auth.organizationId,
      });
      if (!doc || doc.organization_id !== auth.organizationId) throw notFound('Workflow');
      const { id: _id, organization_id: _org, ...workflow } = doc;
      return workflow;
    },
  );
};
