import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import type { EventMetadata, RecordedEvent } from '../../../platform/eventStore/index.ts';
import { type CommandContext, followFromCheckpoint, handleCommand, type Logger } from '../../../platform/es/index.ts';
import { enrolParticipant } from '../../promos/index.ts';
import { openSigningSecret, sendWebhookSecretBox } from '../sendWebhookSecrets.ts';
import type { Action } from '../domain/actions.ts';
import { enrolmentFrom } from '../domain/enrolment.ts';
import { enrolActionForEvent } from '../domain/eventScope.ts';
import type { TemplateScope } from '../domain/template.ts';
import { receptionsIn, type ReceivedWebhook } from '../domain/webhookReception.ts';
import { nextStep, workflowDecider, workflowStream, type StepResult } from '../domain/workflow.ts';
import { DomainError, fold } from '../../../platform/domain/index.ts';
import { sendWebhook } from '../sendWebhook.ts';

export const AUTOMATION_CHECKPOINT = 'automation_runner';
const BATCH_EVENTS = 500;

type Started = { workflowId: number; organizationId: string; actions: Action[]; webhook: ReceivedWebhook; receptionStream: string };

class Aborted extends Error {}

/** Runs one action; failures the sender or the data caused become an unsuccessful result, not an exception. */
async function runAction(
  services: Services,
  action: Action,
  scope: TemplateScope,
  ctx: CommandContext,
  workflowId: number,
  step: number,
  signal: AbortSignal,
): Promise<{ result: StepResult; attempts: number }> {
  const c = services.config;
  if (action.type === 'send_webhook') {
    const secret = action.signing_secret === null ? null : openSigningSecret(sendWebhookSecretBox(services.secrets.jwt), action.signing_secret);
    return sendWebhook({ ...action, signing_secret: secret }, scope, {
      allowHosts: c.WEBHOOK_ALLOW_HOSTS,
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      connectTimeoutMs: c.WEBHOOK_CONNECT_TIMEOUT_MS,
      maxAttempts: c.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: c.WEBHOOK_RETRY_BASE_MS,
      idempotencyKey: `wf_${workflowId}_step_${step}`,
      nowMs: services.clock,
      signal,
    });
  }
  const enrolment = enrolmentFrom(action, scope);
  if (!enrolment.ok) {
    const { email, reference, error, message } = enrolment;
    return { result: { success: false, promo: action.promo, email, reference, error, message }, attempts: 1 };
  }
  const { email, reference } = enrolment;
  // A popular promo's stream is contended by concurrent workflows: a lost race is retried, not a failure.
  for (let attempt = 1; ; attempt++) {
    try {
      const organizationId = ctx.metadata.organization_id!;
      const r = await enrolParticipant(ctx, { organizationId, slug: action.promo, email, reference, workflowId });
      return { result: { success: true, promo: action.promo, email: r.email, reference, enrolled: r.enrolled }, attempts: attempt };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === 'concurrent_update' && attempt < 20 && !signal.aborted) {
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
        continue;
      }
      return { result: { success: false, promo: action.promo, email, reference, error: error.code, message: error.message }, attempts: attempt };
    }
  }
}

/**
 * Runs a workflow from wherever its stream says it is: a completed step is never run again; a
 * step started and not completed (a crash or a stop in the middle) is run again, with the same
 * idempotency key.
 */
async function runWorkflow(services: Services, { workflowId, organizationId, actions, webhook, receptionStream }: Started, signal: AbortSignal, logger: Logger): Promise<void> {
  const metadata = (): EventMetadata => ({
    correlation_id: `workflow_${workflowId}`,
    actor: { type: 'system', name: 'automation' },
    organization_id: organizationId,
    occurred_at: Math.floor(services.clock() / 1000),
  });
  const ctx = (): CommandContext => ({ store: services.store, metadata: metadata() });
  const stream = workflowStream(workflowId);
  const scope: TemplateScope = { webhook_payload: webhook.webhook_payload, webhook_query: webhook.webhook_query, ...(webhook.event ? { event: webhook.event } : {}) };
  // An event trigger's Enrol-in-promo defaults to the buyer's email (see eventScope.ts).
  const eventType = typeof webhook.event?.type === 'string' ? webhook.event.type : null;
  const steps = eventType === null ? actions : actions.map((a) => (a.type === 'enrol_in_promo' ? enrolActionForEvent(a, eventType) : a));
  for (;;) {
    const recorded = await services.store.readStream(stream);
    const state = fold(workflowDecider, recorded as never);
    if (state.status !== 'running') return;
    const step = nextStep(state, steps.length);
    // The commands right after the read decide on what it returned (`known`) instead of reading again.
    if (step === null) {
      await handleCommand(ctx(), stream, workflowDecider, { type: 'FinishWorkflow', workflowId, stepCount: steps.length, now: metadata().occurred_at, receptionStream }, { known: recorded });
      return;
    }
    const action = steps[step]!;
    if (!state.started.includes(step)) {
      await handleCommand(ctx(), stream, workflowDecider, { type: 'StartStep', workflowId, step, action: action.type, now: metadata().occurred_at }, { known: recorded });
    }
    const { result, attempts } = await runAction(services, action, scope, ctx(), workflowId, step, signal);
    // The operator can open the guard; the seller who set the URL up usually cannot: both are told.
    if (result.error === 'blocked_address') logger.error({ workflow_id: workflowId, step }, String(result.message ?? 'outbound webhook blocked'));
    // Stopped mid-step: leave it started, not completed; the next run resumes here.
    if (signal.aborted) throw new Aborted('stopped');
    if (action.type === 'send_webhook') services.metrics.webhookResult(result.success);
    await handleCommand(ctx(), stream, workflowDecider, {
      type: 'CompleteStep',
      workflowId,
      step,
      action: action.type,
      result,
      attempts,
      now: metadata().occurred_at,
    });
  }
}

/**
 * Runs the workflows a batch of reception events started, at most `concurrency` at once. Each
 * WebhookReceived carries its outcome; one recorded before it did is completed by the
 * WorkflowStarted that follows it (its webhook read from its stream when the pair was split
 * between two batches). Skips and WebhookRepeated start nothing: a batch of only those just moves
 * the checkpoint.
 */
async function handleBatch(services: Services, events: RecordedEvent[], concurrency: number, signal: AbortSignal, logger: Logger): Promise<void> {
  const receptions = await receptionsIn(events, async (started) => {
    const earlier = [...(await services.store.readStream(started.stream))].reverse();
    return earlier.find((e) => e.type === 'WebhookReceived' && e.position < started.position)?.data as ReceivedWebhook | undefined;
  });
  // A re-run of a failed workflow: its reception is earlier on the same stream.
  for (const event of events) {
    if (event.type !== 'WorkflowRetryRequested') continue;
    const workflowId = (event.data as { workflow_id: number }).workflow_id;
    const earlier = await receptionsIn(await services.store.readStream(event.stream));
    const reception = earlier.find((r) => r.outcome.status === 'started' && r.outcome.workflow_id === workflowId);
    if (reception) receptions.push(reception);
  }
  const starts: Started[] = [];
  for (const { webhook, outcome, stream } of receptions) {
    // A workflow without actions was finished by its reception (the read model shows it completed):
    // nothing to run and nothing to record.
    if (outcome.status === 'started' && outcome.actions.length > 0) {
      starts.push({ workflowId: outcome.workflow_id, organizationId: webhook.organization_id, actions: outcome.actions, webhook, receptionStream: stream });
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < starts.length) await runWorkflow(services, starts[next++]!, signal, logger);
  };
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(concurrency, starts.length) }, worker));
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/**
 * The automation subscriber: follows the log from its checkpoint, runs the workflows each batch
 * started (up to AUTOMATION_CONCURRENCY at once), then moves the checkpoint. Delivery is at least
 * once; the per-(workflow, step) records make re-delivery skip finished work.
 */
export const automationJob: BackgroundJob = {
  name: 'automation',
  async start(services: Services, logger: Logger) {
    const controller = new AbortController();
    const following = await followFromCheckpoint(services, logger, {
      checkpoint: AUTOMATION_CHECKPOINT,
      streamPrefixes: ['automation_webhook-'],
      // Batches hold many workflows (run AUTOMATION_CONCURRENCY at a time), so a busy catch URL
      // costs one checkpoint commit per few hundred webhooks, not per handful.
      batchSize: BATCH_EVENTS,
      handle: (events) => handleBatch(services, events, services.config.AUTOMATION_CONCURRENCY, controller.signal, logger),
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${AUTOMATION_CHECKPOINT} to run the log's workflows from the start (finished steps are recorded and skipped)`,
      failure: 'automation worker failed; retrying from its checkpoint',
      isStop: (error) => error instanceof Aborted,
    });
    return {
      async stop() {
        controller.abort();
        await following.stop();
      },
    };
  },
};
