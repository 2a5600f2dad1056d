import { workflowDecider, workflowStream } from '../../domain/automation/workflow.ts';
import type { WebhookReceptionEvent } from '../../domain/automation/webhookReception.ts';
import { notFound } from '../../domain/shared/domainError.ts';
import { handleCommand, toNewEvent, type CommandContext } from '../handleCommand.ts';

/**
 * Re-runs a failed workflow from its failed step: WorkflowRetried on the workflow's stream, then a
 * WorkflowRetryRequested on its reception stream, which the automation subscriber follows and
 * answers by running the workflow on from there (the failed step runs again with the same
 * (workflow, step) idempotency key, as a retry after a crash does).
 */
export async function retryWorkflow(ctx: CommandContext, organizationId: string, workflowId: number): Promise<{ workflow_id: number; from_step: number }> {
  // A workflow's id is the log position of its WorkflowStarted.
  const [started] = await ctx.store.readAll({ after: workflowId - 1, limit: 1, streamPrefixes: ['automation_webhook-'] });
  const data = started?.data as { organization_id?: string } | undefined;
  if (!started || started.position !== workflowId || started.type !== 'WorkflowStarted' || data?.organization_id !== organizationId) throw notFound('Workflow');
  const result = await handleCommand(ctx, workflowStream(workflowId), workflowDecider, { type: 'RetryWorkflow', workflowId, now: ctx.metadata.occurred_at });
  const retried = result.events[0]!;
  const request: WebhookReceptionEvent = { type: 'WorkflowRetryRequested', data: { workflow_id: workflowId, requested_at: ctx.metadata.occurred_at } };
  await ctx.store.append(started.stream, [toNewEvent(request, ctx.metadata)], 'any');
  return { workflow_id: workflowId, from_step: (retried.data as { from_step: number }).from_step };
}
