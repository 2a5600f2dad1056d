import { sequenceDecider, sequenceStream } from './domain/sequence.ts';
import { triggerDecider, triggerStream, type TriggerSample } from './domain/trigger.ts';
import { webhookReceptionDecider, webhookReceptionStream } from './domain/webhookReception.ts';
import { conflict, fold, notFound } from '../../platform/domain/index.ts';
import { type CommandContext, handleCommand, timeOrderedUuid } from '../../platform/es/index.ts';
import { nextWorkflowId } from './workflowIds.ts';
import { loadTrigger } from './automationCommands.ts';

/** Makes a received request the trigger's sample record (the caller found it among the trigger's samples). */
export async function chooseTriggerSample(ctx: CommandContext, organizationId: string, id: number, sample: TriggerSample): Promise<void> {
  const trigger = await loadTrigger(ctx, id);
  if (trigger.status === 'none' || trigger.organizationId !== organizationId) throw notFound('Trigger');
  await handleCommand(ctx, triggerStream(id), triggerDecider, { type: 'ChooseSample', sample, now: ctx.metadata.occurred_at });
}

/**
 * Runs the trigger's sequence against its chosen sample as a reception marked `test` (its Send
 * Webhook actions really send); paused and disabled ones run too: a person asked for it.
 */
export async function testRunTrigger(ctx: CommandContext, organizationId: string, id: number): Promise<{ workflow_id: number }> {
  const trigger = fold(triggerDecider, (await ctx.store.readStream(triggerStream(id))) as never);
  if (trigger.status === 'none' || trigger.organizationId !== organizationId) throw notFound('Trigger');
  if (!trigger.sample) throw conflict('no_sample', 'Choose a sample record for the trigger first.');
  const sequence = fold(sequenceDecider, (await ctx.store.readStream(sequenceStream(trigger.sequenceId))) as never);
  if (sequence.status === 'none') throw notFound('Sequence');
  const now = ctx.metadata.occurred_at;
  const workflowId = await nextWorkflowId(ctx.store, ctx.metadata);
  await handleCommand(
    ctx,
    webhookReceptionStream(timeOrderedUuid()),
    webhookReceptionDecider,
    {
      type: 'ReceiveWebhook',
      webhook: {
        trigger_id: id,
        sequence_id: trigger.sequenceId,
        organization_id: organizationId,
        method: trigger.sample.method,
        // An event trigger's sample is an event: replayed as one.
        ...(trigger.triggerType === 'event' ? { webhook_payload: {}, event: trigger.sample.payload } : { webhook_payload: trigger.sample.payload }),
        webhook_query: trigger.sample.query as Record<string, string | string[]>,
        headers: trigger.sample.headers,
        received_at: now,
        dedupe_key: null,
        test: true,
      },
      triggerEnabled: true,
      sequenceActive: true,
      actions: sequence.actions,
      workflowId,
      now,
    },
    { known: [] },
  );
  return { workflow_id: workflowId };
}
