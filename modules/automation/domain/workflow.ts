import { conflict, type Decider, type DomainEvent } from '../../../platform/domain/index.ts';

/**
 * The run of one workflow, step by step. A step is started, then completed with its result;
 * after a crash the runner folds this stream and re-runs only a step that was started and never
 * completed (at least once; the outbound call carries the (workflow, step) idempotency key).
 */
export type StepResult = { success: boolean } & Record<string, unknown>;

export type WorkflowEvent =
  | DomainEvent<'WorkflowStepStarted', { workflow_id: number; step: number; action: string; started_at: number }>
  | DomainEvent<'WorkflowStepCompleted', { workflow_id: number; step: number; action: string; success: boolean; attempts: number; result: StepResult; completed_at: number }>
  | DomainEvent<'WorkflowCompleted', { workflow_id: number; completed_at: number }>
  /** `reception_stream`: where the workflow started (absent on events recorded by older versions). */
  | DomainEvent<'WorkflowFailed', { workflow_id: number; failed_step: number; failed_at: number; reception_stream?: string }>
  /** A person re-runs a failed workflow from its failed step: the steps before it stand. */
  | DomainEvent<'WorkflowRetried', { workflow_id: number; from_step: number; retried_at: number }>;

export type WorkflowCommand =
  | { type: 'StartStep'; workflowId: number; step: number; action: string; now: number }
  | { type: 'CompleteStep'; workflowId: number; step: number; action: string; result: StepResult; attempts: number; now: number }
  | { type: 'FinishWorkflow'; workflowId: number; stepCount: number; now: number; receptionStream?: string }
  | { type: 'RetryWorkflow'; workflowId: number; now: number };

export type WorkflowState = {
  status: 'running' | 'completed' | 'failed';
  started: number[];
  completed: Array<{ step: number; success: boolean }>;
};

export const workflowStream = (id: number) => `automation_workflow-${id}`;

export const workflowDecider: Decider<WorkflowState, WorkflowCommand, WorkflowEvent> = {
  initialState: () => ({ status: 'running', started: [], completed: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'WorkflowStepStarted':
        return { ...state, started: [...state.started, event.data.step] };
      case 'WorkflowStepCompleted':
        return { ...state, completed: [...state.completed, { step: event.data.step, success: event.data.success }] };
      case 'WorkflowCompleted':
        return { ...state, status: 'completed' };
      case 'WorkflowFailed':
        return { ...state, status: 'failed' };
      case 'WorkflowRetried': {
        const from = event.data.from_step;
        return { status: 'running', started: state.started.filter((s) => s < from), completed: state.completed.filter((c) => c.step < from) };
      }
    }
  },
  decide(command, state) {
    if (command.type === 'RetryWorkflow') {
      const failed = state.completed.find((c) => !c.success);
      if (state.status !== 'failed' || !failed) throw conflict('workflow_not_failed', 'Only a failed workflow can be re-run.');
      return { type: 'WorkflowRetried', data: { workflow_id: command.workflowId, from_step: failed.step, retried_at: command.now } };
    }
    if (state.status !== 'running') return [];
    switch (command.type) {
      case 'StartStep':
        if (state.completed.some((c) => c.step === command.step)) return [];
        if (state.completed.length < command.step) throw conflict('step_out_of_order', 'An earlier step has not completed.');
        return { type: 'WorkflowStepStarted', data: { workflow_id: command.workflowId, step: command.step, action: command.action, started_at: command.now } };
      case 'CompleteStep':
        if (state.completed.some((c) => c.step === command.step)) return [];
        return {
          type: 'WorkflowStepCompleted',
          data: {
            workflow_id: command.workflowId,
            step: command.step,
            action: command.action,
            success: command.result.success,
            attempts: command.attempts,
            result: command.result,
            completed_at: command.now,
          },
        };
      case 'FinishWorkflow': {
        const failed = state.completed.find((c) => !c.success);
        if (failed) {
          const at = command.receptionStream ? { reception_stream: command.receptionStream } : {};
          return { type: 'WorkflowFailed', data: { workflow_id: command.workflowId, failed_step: failed.step, failed_at: command.now, ...at } };
        }
        if (state.completed.length < command.stepCount) throw conflict('steps_pending', 'Not every step has completed.');
        return { type: 'WorkflowCompleted', data: { workflow_id: command.workflowId, completed_at: command.now } };
      }
    }
  },
};

/** The next step to run, or null when the workflow should finish (all done, or one failed). */
export function nextStep(state: WorkflowState, stepCount: number): number | null {
  if (state.status !== 'running' || state.completed.some((c) => !c.success)) return null;
  return state.completed.length < stepCount ? state.completed.length : null;
}
