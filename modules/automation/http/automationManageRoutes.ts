import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sendWebhookSecretBox } from '../sendWebhookSecrets.ts';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { loadSequence, loadTrigger, replaceTrigger, setSequenceStatus, setTriggerEnabled } from '../automationCommands.ts';
import { promosSection, sequencesSection, PromoImport, SequenceImport } from '../automationImport.ts';
import { retryWorkflow } from '../retryWorkflow.ts';
import { chooseTriggerSample, testRunTrigger } from '../triggerSamples.ts';
import { type ImportSection, runImport } from '../../../platform/import/index.ts';
import { SAMPLES, SEQUENCES, TRIGGERS, WORKFLOWS, type SampleDoc, type SequenceDoc, type TriggerDoc, type WorkflowDoc } from '../automationProjection.ts';
import { PROMO_PARTICIPANTS, type PromoDoc, PROMOS, promoStream } from '../../promos/index.ts';
import { baseUrl, decimalInteger, findOrAwaitStream, manageContext, manageErrors, manageRoute, notFound, pageOf, PageQuery, readModelsAtHead } from '../../../platform/http/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { workflowStream } from '../domain/workflow.ts';

const IntId = decimalInteger(1, Number.MAX_SAFE_INTEGER);
const Doc = z.record(z.string(), z.unknown());
const List = z.object({ data: z.array(Doc) });

/**
 * Sequences (with their triggers) and promos through the import's own sections, so a write here
 * is exactly what `commerce import` records; triggers enabled, disabled and rotated; workflows
 * read. A Send Webhook action's signing secret is write-only: answers say `signed`, never the secret.
 */
export const automationManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const sendWebhookSecrets = sendWebhookSecretBox(services.secrets.jwt);
  // The answer is the import's own result (decided on streams alone): it waits for no projection.
  const importOne = async (request: Parameters<typeof manageContext>[1], organizationId: string, section: ImportSection, item: unknown) => {
    const command = manageContext(services, request);
    const result = await runImport({ command, organizationId, catchUp: async () => undefined, sendWebhookSecrets }, { [section.name]: [item] }, [section]);
    return (result.sections[section.name] as unknown[])[0];
  };
  const catchUrl = (request: Parameters<typeof baseUrl>[1], sequenceKey: string, triggerKey: string) => `${baseUrl(services, request)}/hooks/catch/${sequenceKey}/${triggerKey}`;

  app.get(
    '/manage/api/sequences',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'Sequences with their actions (signing secrets never shown).', response: { 200: List, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const docs = await services.readStore.find<SequenceDoc>(SEQUENCES, { filter: { organization_id: organizationId }, sort: [['sequence_id', 1]], limit: 1000 });
      return { data: docs.map(({ id: _id, organization_id: _o, route_key: _rk, sequence_id, ...rest }) => ({ id: sequence_id, ...rest })) };
    },
  );

  app.post(
    '/manage/api/sequences',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Create a sequence with its actions and triggers, or update the one with this key, as `commerce import` does.',
        description:
          'A Send Webhook action\'s `signing_secret` is write-only; an update replaces the actions as given, but a step whose `signing_secret` is left out keeps the secret of the step at its position, and `{"from_step": n}` keeps step n\'s (null stops signing).',
        body: SequenceImport,
        response: { 200: Doc, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const result = (await importOne(request, organizationId, sequencesSection as ImportSection, request.body)) as {
        triggers: Array<{ catch_path: string | null }>;
      } & Record<string, unknown>;
      const base = baseUrl(services, request);
      // An event trigger has no catch URL (null).
      return { ...result, triggers: result.triggers.map((t) => ({ ...t, catch_url: t.catch_path === null ? null : `${base}${t.catch_path}` })) };
    },
  );

  for (const status of ['paused', 'active'] as const) {
    app.post(
      `/manage/api/sequences/:id/${status === 'paused' ? 'pause' : 'resume'}`,
      { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: `${status === 'paused' ? 'Pause' : 'Resume'} a sequence.`, params: z.object({ id: IntId }), response: { 200: Doc, ...manageErrors } } },
      async (request) => {
        const { organizationId } = requireOrganization(request);
        return setSequenceStatus(manageContext(services, request), request.params.id, status, organizationId);
      },
    );
  }

  app.get(
    '/manage/api/triggers',
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'Triggers with their catch URLs (null for an event trigger, which names its event_type).', querystring: z.object({ trigger_type: z.enum(['webhook', 'event']).optional() }), response: { 200: List, ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const docs = await services.readStore.find<TriggerDoc>(TRIGGERS, { filter: { organization_id: organizationId, ...(request.query.trigger_type ? { trigger_type: request.query.trigger_type } : {}) }, sort: [['trigger_id', 1]], limit: 1000 });
      const sequences = new Map(
        (await services.readStore.find<SequenceDoc>(SEQUENCES, { filter: { organization_id: organizationId }, limit: 1000 })).map((s) => [s.sequence_id, s.route_key]),
      );
      return {
        data: docs.map(({ id: _id, organization_id: _o, route_key, trigger_id, ...rest }) => ({
          id: trigger_id,
          ...rest,
          event_type: rest.event_type ?? null,
          catch_url: rest.trigger_type === 'event' ? null : catchUrl(request, sequences.get(rest.sequence_id) ?? '', route_key),
        })),
      };
    },
  );

  const ownTrigger = async (organizationId: string, id: number) => {
    const state = await loadTrigger(services, id);
    if (state.status === 'none' || state.organizationId !== organizationId) throw notFound('Trigger');
    return state;
  };

  for (const enabled of [true, false]) {
    app.post(
      `/manage/api/triggers/:id/${enabled ? 'enable' : 'disable'}`,
      { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: `${enabled ? 'Enable' : 'Disable'} a trigger.`, params: z.object({ id: IntId }), response: { 200: Doc, ...manageErrors } } },
      async (request) => {
        const { organizationId } = requireOrganization(request);
        await ownTrigger(organizationId, request.params.id);
        await setTriggerEnabled(manageContext(services, request), request.params.id, enabled);
        return { id: request.params.id, enabled };
      },
    );
  }

  app.post(
    '/manage/api/triggers/:id/rotate',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'Give a trigger a new catch URL; the old one stops working at once.', params: z.object({ id: IntId }), response: { 200: Doc, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const trigger = await ownTrigger(organizationId, request.params.id);
      const rotated = await replaceTrigger(manageContext(services, request), request.params.id, organizationId);
      const sequence = await loadSequence(services, trigger.sequenceId);
      return { id: rotated.id, catch_url: catchUrl(request, sequence?.routeKey ?? '', rotated.route_key) };
    },
  );

  const sampleView = ({ organization_id: _o, position: _p, ...rest }: SampleDoc) => ({ ...rest, repeated: rest.repeated ?? false });

  app.get(
    '/manage/api/triggers/:id/samples',
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'The latest requests the trigger received, newest first, and the chosen sample record.', params: z.object({ id: IntId }), response: { 200: z.object({ data: z.array(Doc), chosen: Doc.nullable() }), ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const trigger = await ownTrigger(organizationId, request.params.id);
      const docs = await services.readStore.find<SampleDoc>(SAMPLES, { filter: { trigger_id: request.params.id }, sort: [['position', -1]] });
      return { data: docs.map(sampleView), chosen: trigger.sample ?? null };
    },
  );

  app.put(
    '/manage/api/triggers/:id/sample',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: "Choose one of the received requests as the trigger's sample record.",
        params: z.object({ id: IntId }),
        body: z.strictObject({ sample_id: z.string().min(3).max(40).regex(/^\d+:\d+$/, 'must be the id of one of the trigger\'s samples') }),
        response: { 200: Doc, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      await ownTrigger(organizationId, request.params.id);
      // Samples are a read model of the trigger's receptions: a request received a moment ago counts.
      await readModelsAtHead(services);
      const sample = await services.readStore.get<SampleDoc>(SAMPLES, request.body.sample_id);
      if (!sample || sample.trigger_id !== request.params.id) throw notFound('Sample');
      const chosen = { method: sample.method, payload: sample.payload, query: sample.query, headers: sample.headers, received_at: sample.received_at };
      await chooseTriggerSample(manageContext(services, request), organizationId, request.params.id, chosen);
      return { trigger_id: request.params.id, sample: chosen };
    },
  );

  app.post(
    '/manage/api/triggers/:id/test-run',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: "Run the trigger's sequence against its chosen sample: a workflow marked test, whose Send Webhook actions really send.",
        params: z.object({ id: IntId }),
        response: { 202: z.object({ workflow_id: z.number().int(), test: z.literal(true) }), ...manageErrors },
      },
    },
    async (request, reply) => {
      const { organizationId } = requireOrganization(request);
      const run = await testRunTrigger(manageContext(services, request), organizationId, request.params.id);
      return reply.code(202).send({ workflow_id: run.workflow_id, test: true as const });
    },
  );

  app.get(
    '/manage/api/workflows',
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'Workflow runs, newest first.', querystring: PageQuery.extend({ status: z.enum(['running', 'completed', 'failed']).optional() }), response: { 200: z.object({ data: z.array(Doc), meta: Doc }), ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const { page, per_page, status } = request.query;
      const filter = { organization_id: organizationId, ...(status ? { status } : {}) };
      const [items, total] = await Promise.all([
        services.readStore.find<WorkflowDoc>(WORKFLOWS, { filter, sort: [['workflow_id', -1]], skip: (page - 1) * per_page, limit: per_page }),
        services.readStore.count(WORKFLOWS, filter),
      ]);
      return pageOf(items.map(({ id: _id, organization_id: _o, workflow_id, ...rest }) => ({ id: workflow_id, ...rest })), total, page, per_page);
    },
  );

  app.get(
    '/manage/api/workflows/:id',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'A workflow run with its steps and their results.', params: z.object({ id: IntId }), response: { 200: Doc, ...manageErrors } } },
    async (request, reply) => {
      const { organizationId } = requireOrganization(request);
      const workflowId = request.params.id;
      const doc = await findOrAwaitStream(services, reply, {
        stream: workflowStream(workflowId),
        find: async () => (await services.readStore.find<WorkflowDoc>(WORKFLOWS, { filter: { workflow_id: workflowId }, limit: 1 }))[0] ?? null,
        organizationId,
      });
      if (!doc || doc.organization_id !== organizationId) throw notFound('Workflow');
      const { id: _id, organization_id: _o, workflow_id, ...rest } = doc;
      return { id: workflow_id, ...rest };
    },
  );

  app.post(
    '/manage/api/workflows/:id/rerun',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Re-run a failed workflow from its failed step (409 workflow_not_failed otherwise).',
        params: z.object({ id: IntId }),
        response: { 202: z.object({ workflow_id: z.number().int(), from_step: z.number().int() }), ...manageErrors },
      },
    },
    async (request, reply) => {
      const { organizationId } = requireOrganization(request);
      // The read model says where the workflow's reception is; the command decides on its events.
      const [doc] = await services.readStore.find<WorkflowDoc>(WORKFLOWS, { filter: { workflow_id: request.params.id }, limit: 1 });
      if (!doc || doc.organization_id !== organizationId) throw notFound('Workflow');
      return reply.code(202).send(await retryWorkflow(manageContext(services, request), organizationId, request.params.id, doc.reception_stream));
    },
  );

  app.get(
    '/manage/api/promos',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'Promos with their tiers and participant counts.', response: { 200: List, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const docs = await services.readStore.find<PromoDoc>(PROMOS, { filter: { organization_id: organizationId }, limit: 1000 });
      return { data: docs.map(({ id: _id, organization_id: _o, ...rest }) => rest) };
    },
  );

  app.post(
    '/manage/api/promos',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'Create a promo, or update the one with this slug (name, dates, tiers, offers), as `commerce import` does.', body: PromoImport, response: { 200: Doc, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      return (await importOne(request, organizationId, promosSection as ImportSection, request.body)) as Record<string, unknown>;
    },
  );

  app.get(
    '/manage/api/promos/:slug/participants',
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: "A promo's participants.", params: z.object({ slug: z.string().min(1).max(100).regex(/^[a-z0-9-]+$/, 'must be a promo slug') }), querystring: PageQuery, response: { 200: z.object({ data: z.array(Doc), meta: Doc }), ...manageErrors } },
    },
    async (request, reply) => {
      const { organizationId } = requireOrganization(request);
      const slug = request.params.slug;
      const promo = await findOrAwaitStream(services, reply, { stream: promoStream(slug), find: () => services.readStore.get<PromoDoc>(PROMOS, slug), organizationId });
      if (!promo || promo.organization_id !== organizationId) throw notFound('Promo');
      const { page, per_page } = request.query;
      const filter = { slug: request.params.slug };
      const [items, total] = await Promise.all([
        services.readStore.find(PROMO_PARTICIPANTS, { filter, skip: (page - 1) * per_page, limit: per_page }),
        services.readStore.count(PROMO_PARTICIPANTS, filter),
      ]);
      return pageOf(items, total, page, per_page);
    },
  );
};
