import { workflowDecider, workflowStream } from './domain/workflow.ts';
import { receptionsIn, type WebhookReceptionEvent } from './domain/webhookReception.ts';
import { notFound } from '../../platform/domain/index.ts';
import { type CommandContext, handleCommand, toNewEvent } from '../../platform/es/index.ts';

/**
 * Re-runs a failed workflow from its failed step: WorkflowRetried on the workflow's stream, then a
 * WorkflowRetryRequested on its reception stream, which the automation subscriber follows and
 * answers by running the workflow on from there (the failed step runs again with the same
 * (workflow, step) idempotency key, as a retry after a crash does).
 *
 * `receptionStream` is where the caller's read model says the workflow started; the reception's
 * own events decide whether it did, in this organization. A workflow recorded before receptions
 * carried their outcome has its WorkflowStarted's log position as its id, which finds it.
 */
export async function retryWorkflow(
  ctx: CommandContext,
  organizationId: string,
  workflowId: number,
  receptionStream: string | undefined,
): Promise<{ workflow_id: number; from_step: number }> {
  const stream = receptionStream ?? (await legacyReceptionStream(ctx, workflowId));
  const receptions = stream ? await receptionsIn(await ctx.store.readStream(stream)) : [];
  const reception = receptions.find((r) => r.outcome.status === 'started' && r.outcome.workflow_id === workflowId);
  if (!stream || !reception || reception.webhook.organization_id !== organizationId) throw notFound('Workflow');
  const result = await handleCommand(ctx, workflowStream(workflowId), workflowDecider, { type: 'RetryWorkflow', workflowId, now: ctx.metadata.occurred_at });
  const retried = result.events[0]!;
  const request: WebhookReceptionEvent = { type: 'WorkflowRetryRequested', data: { workflow_id: workflowId, requested_at: ctx.metadata.occurred_at } };
  await ctx.store.append(stream, [toNewEvent(request, ctx.metadata)], 'any');
  return { workflow_id: workflowId, from_step: (retried.data as { from_step: number }).from_step };
}

async function legacyReceptionStream(ctx: CommandContext, workflowId: number): Promise<string | undefined> {
  const [started] = await ctx.store.readAll({ after: null, from: workflowId, limit: 1, streamPrefixes: ['automation_webhook-'] });
  return started && started.position === workflowId && started.type === 'WorkflowStarted' ? started.stream : undefined;
}
