export { automationProjection, TRIGGERS, type TriggerDoc, WORKFLOWS, type WorkflowDoc } from './automationProjection.ts';
export { sequenceDecider, sequenceStream } from './domain/sequence.ts';
export { type ReceivedWebhook, receptionsIn, webhookReceptionDecider, webhookReceptionStream } from './domain/webhookReception.ts';
export { Workflow } from './http/automationRoutes.ts';
export { nextWorkflowId } from './workflowIds.ts';
