import { describe, expect, it } from 'vitest';
import { nextStep, workflowDecider } from '../../modules/automation/domain/workflow.ts';
import { fold } from '../../platform/domain/decider.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

const step = (n: number, success: boolean) => [
  { type: 'WorkflowStepStarted', data: { workflow_id: 7, step: n, action: 'send_webhook', started_at: 1 } },
  { type: 'WorkflowStepCompleted', data: { workflow_id: 7, step: n, action: 'send_webhook', success, attempts: 1, result: { success }, completed_at: 2 } },
] as const;

describe('re-running a workflow', () => {
  const spec = deciderSpec(workflowDecider);
  const failed = [...step(0, true), ...step(1, false), { type: 'WorkflowFailed', data: { workflow_id: 7, failed_step: 1, failed_at: 3 } }] as const;
  it('restarts a failed workflow at its failed step, keeping the steps before it', () => {
    spec.given([...failed]).when({ type: 'RetryWorkflow', workflowId: 7, now: 9 }).then([{ type: 'WorkflowRetried', data: { workflow_id: 7, from_step: 1, retried_at: 9 } }]);
    const state = fold(workflowDecider, [...failed, { type: 'WorkflowRetried', data: { workflow_id: 7, from_step: 1, retried_at: 9 } }]);
    expect(state).toEqual({ status: 'running', started: [0], completed: [{ step: 0, success: true }] });
    expect(nextStep(state, 2)).toBe(1);
  });
  it('refuses a workflow that did not fail', () => {
    spec.given([...step(0, true)]).when({ type: 'RetryWorkflow', workflowId: 7, now: 9 }).thenThrows('workflow_not_failed');
    spec.given([...step(0, true), { type: 'WorkflowCompleted', data: { workflow_id: 7, completed_at: 3 } }]).when({ type: 'RetryWorkflow', workflowId: 7, now: 9 }).thenThrows('workflow_not_failed');
  });
});
