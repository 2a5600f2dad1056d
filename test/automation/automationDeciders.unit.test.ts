import { describe, expect, it } from 'vitest';
import { isSigningSecret, type Action } from '../../modules/automation/domain/actions.ts';
import { sequenceDecider, type SequenceEvent } from '../../modules/automation/domain/sequence.ts';
import { triggerDecider, type TriggerEvent } from '../../modules/automation/domain/trigger.ts';
import { receptionsIn, webhookReceptionDecider, type ReceivedWebhook, type WebhookReceptionEvent } from '../../modules/automation/domain/webhookReception.ts';
import { nextStep, workflowDecider, type WorkflowEvent } from '../../modules/automation/domain/workflow.ts';
import { fold } from '../../platform/domain/decider.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

const hook: Action = { type: 'send_webhook', url: 'https://example.com/h', method: 'POST', payload: '{}', headers: {}, signing_secret: null };
const created: SequenceEvent = {
  type: 'SequenceCreated',
  data: { id: 1, organization_id: 'org_a', key: null, name: 'Seq', status: 'active', route_key: 'K'.repeat(24), actions: [hook], created_at: 100 },
};

describe('sequence decider', () => {
  const spec = deciderSpec(sequenceDecider);
  const create = { type: 'CreateSequence' as const, id: 1, organizationId: 'org_a', key: null, name: 'Seq', status: 'active' as const, routeKey: 'K'.repeat(24), actions: [hook], now: 100 };
  it('creates a sequence', () => spec.given([]).when(create).then([created]));
  it('refuses a second creation', () => spec.given([created]).when(create).thenThrows('sequence_exists'));
  it('refuses a non-http URL and a GET with a payload', () => {
    spec.given([]).when({ ...create, actions: [{ ...hook, url: 'ftp://x/' }] }).thenThrows('invalid_url');
    spec.given([]).when({ ...create, actions: [{ ...hook, method: 'GET' }] }).thenThrows('payload_with_get');
  });
  it('refuses a header value with a line break or a control character, which the HTTP client would refuse at each call', () => {
    for (const value of ['a\r\nX-Injected: 1', 'a\nb', 'a\u0000b', 'a\u0100b']) {
      spec.given([]).when({ ...create, actions: [{ ...hook, headers: { 'X-Ok': 'tab\tand é', 'X-Bad': value } }] }).thenThrows('invalid_header');
      spec.given([created]).when({ type: 'UpdateSequence', name: 'Seq', status: 'active', actions: [{ ...hook, headers: { 'X-Bad': value } }], now: 7 }).thenThrows('invalid_header');
    }
    const fine = [{ ...hook, headers: { 'X-Ok': 'tab\tand é' } }];
    spec.given([]).when({ ...create, actions: fine }).then([{ ...created, data: { ...created.data, actions: fine } }]);
  });
  it('refuses a payload template that is not JSON once its placeholders are filled, naming the action', () => {
    const fine = [{ ...hook, payload: '{"n":{{webhook_payload.n}},"e":"{{webhook_payload.email}}"}' }, { ...hook, payload: '' }];
    spec.given([]).when({ ...create, actions: fine }).then([{ ...created, data: { ...created.data, actions: fine } }]);
    for (const payload of ['not json', '{"n":{{webhook_payload.n}}', '{"n":}']) {
      spec.given([]).when({ ...create, actions: [hook, { ...hook, payload }] }).thenThrows('invalid_payload');
      spec.given([created]).when({ type: 'UpdateSequence', name: 'Seq', status: 'active', actions: [{ ...hook, payload }], now: 7 }).thenThrows('invalid_payload');
    }
    const error = (() => {
      try {
        sequenceDecider.decide({ ...create, actions: [hook, { ...hook, payload: 'not json' }] }, sequenceDecider.initialState());
      } catch (e) {
        return e as { message: string; fields: Record<string, string[]> };
      }
    })();
    expect(error?.message).toMatch(/^The payload of action actions\.1 \(send_webhook to https:\/\/example\.com\/h\) must be a JSON template: .+ reads not json, which is not JSON \(.+\)\.$/);
    expect(Object.keys(error?.fields ?? {})).toEqual(['actions.1.payload']);
  });
  it('takes Standard Webhooks secrets only: whsec_ and the base64 of 24 to 64 bytes', () => {
    const secret = (bytes: number) => `whsec_${Buffer.alloc(bytes, 0xab).toString('base64')}`;
    for (const ok of [secret(24), secret(32), secret(64), secret(25)]) expect(isSigningSecret(ok), ok).toBe(true);
    for (const bad of [secret(23), secret(65), secret(32).slice(6), secret(32).slice(0, -1), 'whsec_' + '-'.repeat(32), `${secret(32)}\n`, 'whsec_writeonly_0123456789']) {
      expect(isSigningSecret(bad), bad).toBe(false);
      spec.given([]).when({ ...create, actions: [{ ...hook, signing_secret: bad }] }).thenThrows('invalid_signing_secret');
    }
  });
  it('keeps a secret it is not given again: left out, the step at the same position; from_step, the step named; null, none', () => {
    const a = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const legacy = 'an old secret, in no whsec_ form';
    const signed: SequenceEvent = { ...created, data: { ...created.data, actions: [{ ...hook, signing_secret: a }, { ...hook, url: 'https://example.com/2', signing_secret: legacy }] } };
    const { signing_secret: _s, ...unsaid } = hook;
    const update = (actions: unknown[]) => ({ type: 'UpdateSequence' as const, name: 'Seq', status: 'active' as const, actions: actions as Action[], now: 7 });
    const updated = (actions: Action[]): SequenceEvent[] => [{ type: 'SequenceUpdated', data: { name: 'Seq', status: 'active', actions, updated_at: 7 } }];
    spec.given([signed]).when(update([unsaid, { ...unsaid, url: 'https://example.com/2' }])).then([]);
    spec.given([signed]).when(update([{ ...unsaid, payload: '{"x":1}' }])).then(updated([{ ...hook, payload: '{"x":1}', signing_secret: a }]));
    // Steps moved: each names the step whose secret it keeps, a legacy one included.
    spec.given([signed]).when(update([{ ...unsaid, signing_secret: { from_step: 1 } }, { ...unsaid, signing_secret: { from_step: 0 } }, unsaid])).then(
      updated([{ ...hook, signing_secret: legacy }, { ...hook, signing_secret: a }, hook]),
    );
    spec.given([signed]).when(update([{ ...unsaid, signing_secret: null }])).then(updated([hook]));
    spec.given([signed]).when(update([{ ...unsaid, signing_secret: { from_step: 2 } }])).thenThrows('invalid_signing_secret');
    spec.given([signed]).when(update([{ ...unsaid, signing_secret: legacy }])).thenThrows('invalid_signing_secret');
    spec.given([]).when({ ...create, actions: [unsaid] }).then([created]);
    spec.given([]).when({ ...create, actions: [{ ...unsaid, signing_secret: { from_step: 0 } }] }).thenThrows('invalid_signing_secret');
  });
  it('updates only when something changed', () => {
    const update = { type: 'UpdateSequence' as const, name: 'Seq', status: 'active' as const, actions: [hook], now: 7 };
    spec.given([created]).when(update).then([]);
    spec.given([created]).when({ ...update, actions: [] }).then([{ type: 'SequenceUpdated', data: { name: 'Seq', status: 'active', actions: [], updated_at: 7 } }]);
    spec.given([]).when(update).thenThrows('not_found');
  });
  it('pauses once and resumes once', () => {
    spec.given([created]).when({ type: 'PauseSequence', now: 5 }).then([{ type: 'SequencePaused', data: { paused_at: 5 } }]);
    spec.given([created, { type: 'SequencePaused', data: { paused_at: 5 } }]).when({ type: 'PauseSequence', now: 6 }).then([]);
    spec.given([created]).when({ type: 'ResumeSequence', now: 6 }).then([]);
    spec.given([]).when({ type: 'PauseSequence', now: 6 }).thenThrows('not_found');
  });
});

describe('trigger decider', () => {
  const spec = deciderSpec(triggerDecider);
  const triggerCreated: TriggerEvent = {
    type: 'TriggerCreated',
    data: { id: 7, organization_id: 'org_a', sequence_id: 1, key: null, name: 'T', trigger_type: 'webhook', enabled: true, route_key: 'R1', created_at: 1 },
  };
  const create = { type: 'CreateTrigger' as const, id: 7, organizationId: 'org_a', sequenceId: 1, sequenceOrganizationId: 'org_a', key: null, name: 'T', enabled: true, routeKey: 'R1', now: 1 };
  it('creates a webhook trigger', () => spec.given([]).when(create).then([triggerCreated]));
  it('refuses a sequence of another organization as unknown', () =>
    spec.given([]).when({ ...create, sequenceOrganizationId: 'org_b' }).thenThrows('not_found'));
  it('rotates the route key on replace', () => {
    spec.given([triggerCreated]).when({ type: 'ReplaceTrigger', routeKey: 'R2', now: 2 }).then([{ type: 'TriggerReplaced', data: { route_key: 'R2', replaced_at: 2 } }]);
    const state = fold(triggerDecider, [triggerCreated, { type: 'TriggerReplaced', data: { route_key: 'R2', replaced_at: 2 } }]);
    expect(state.status === 'created' && state.routeKey).toBe('R2');
  });
  it('disables once', () => {
    spec.given([triggerCreated]).when({ type: 'SetTriggerEnabled', enabled: false, now: 3 }).then([{ type: 'TriggerDisabled', data: { at: 3 } }]);
    spec.given([triggerCreated]).when({ type: 'SetTriggerEnabled', enabled: true, now: 3 }).then([]);
  });
});

describe('webhook reception decider', () => {
  const spec = deciderSpec(webhookReceptionDecider);
  const webhook: ReceivedWebhook = {
    trigger_id: 7,
    sequence_id: 1,
    organization_id: 'org_a',
    method: 'POST',
    webhook_payload: { email: 'a@example.com' },
    webhook_query: {},
    headers: {},
    received_at: 1000,
    dedupe_key: 'k',
  };
  const receive = { type: 'ReceiveWebhook' as const, webhook, triggerEnabled: true, sequenceActive: true, actions: [hook], workflowId: 5, now: 1000 };
  const received: WebhookReceptionEvent = { type: 'WebhookReceived', data: { ...webhook, outcome: { status: 'started', workflow_id: 5, actions: [hook] } } };
  it('records the request with the workflow it starts, in one event', () => spec.given([]).when(receive).then([received]));
  it('records the request with its skip when the trigger is disabled or the sequence paused', () => {
    const skipped = (reason: 'trigger_disabled' | 'sequence_paused'): WebhookReceptionEvent => ({ type: 'WebhookReceived', data: { ...webhook, outcome: { status: 'skipped', reason } } });
    spec.given([]).when({ ...receive, triggerEnabled: false, workflowId: null }).then([skipped('trigger_disabled')]);
    spec.given([]).when({ ...receive, sequenceActive: false, workflowId: null }).then([skipped('sequence_paused')]);
  });
  it('decides nothing on the key\'s stream for a repeat within 24 hours, and a new reception after', () => {
    spec.given([received]).when({ ...receive, now: 1000 + 86_399 }).then([]);
    const repeat: WebhookReceptionEvent = { type: 'WebhookRepeated', data: { ...webhook, received_at: 1500, answered_workflow_id: 42 } };
    // Repeats do not move the window: it runs from the request that started the workflow.
    spec.given([received, repeat]).when({ ...receive, now: 1000 + 86_399 }).then([]);
    // A stream written before receptions carried their outcome (the pair) counts the same.
    const legacyPair: WebhookReceptionEvent[] = [
      { type: 'WebhookReceived', data: webhook },
      { type: 'WorkflowStarted', data: { trigger_id: 7, sequence_id: 1, organization_id: 'org_a', actions: [hook], started_at: 1000 } },
    ];
    spec.given(legacyPair).when({ ...receive, now: 1000 + 86_399 }).then([]);
    const later = { ...webhook, received_at: 1000 + 86_400 };
    spec
      .given([received])
      .when({ ...receive, webhook: later, workflowId: 6, now: 1000 + 86_400 })
      .then([{ type: 'WebhookReceived', data: { ...later, outcome: { status: 'started', workflow_id: 6, actions: [hook] } } }]);
  });
  it('reads receptions recorded as one event and as the pair written before, split across reads or not', async () => {
    const at = (event: WebhookReceptionEvent, stream: string, position: number) => ({ ...event, stream, position });
    const legacyStarted = { type: 'WorkflowStarted' as const, data: { trigger_id: 7, sequence_id: 1, organization_id: 'org_a', actions: [hook], started_at: 1000 } };
    const receptions = await receptionsIn([
      at({ type: 'WebhookReceived', data: webhook }, 's1', 10),
      at(received, 's2', 11),
      at(legacyStarted, 's1', 12),
      at({ type: 'WebhookReceived', data: webhook }, 's3', 13),
      at({ type: 'WebhookSkipped', data: { trigger_id: 7, reason: 'sequence_paused' } }, 's3', 14),
      at({ ...legacyStarted, data: { ...legacyStarted.data, workflow_id: 3 } }, 's4', 20),
      at({ type: 'WebhookRepeated', data: { ...webhook, answered_workflow_id: 5 } }, 's5', 21),
    ], async (e) => (e.stream === 's4' ? { ...webhook, method: 'PUT' } : undefined));
    expect(receptions).toEqual([
      { webhook, outcome: { status: 'started', workflow_id: 5, actions: [hook] }, position: 11, stream: 's2' },
      // A legacy workflow's id is its WorkflowStarted's position, or the id a copy carried.
      { webhook, outcome: { status: 'started', workflow_id: 12, actions: [hook] }, position: 12, stream: 's1' },
      { webhook, outcome: { status: 'skipped', reason: 'sequence_paused' }, position: 14, stream: 's3' },
      { webhook: { ...webhook, method: 'PUT' }, outcome: { status: 'started', workflow_id: 3, actions: [hook] }, position: 20, stream: 's4' },
    ]);
  });
  it('records a repeat, on a stream of its own, with the answer it was given', () => {
    const again = { ...webhook, method: 'PUT', webhook_payload: { email: 'b@example.com' }, received_at: 1010 };
    spec
      .given([])
      .when({ type: 'RecordRepeat', webhook: again, answeredWorkflowId: 42 })
      .then([{ type: 'WebhookRepeated', data: { ...again, answered_workflow_id: 42 } }]);
  });
});

describe('workflow decider', () => {
  const spec = deciderSpec(workflowDecider);
  const stepStarted = (step: number): WorkflowEvent => ({ type: 'WorkflowStepStarted', data: { workflow_id: 9, step, action: 'send_webhook', started_at: 1 } });
  const stepDone = (step: number, success = true): WorkflowEvent => ({
    type: 'WorkflowStepCompleted',
    data: { workflow_id: 9, step, action: 'send_webhook', success, attempts: 1, result: { success }, completed_at: 2 },
  });
  it('starts steps in order and never a completed one again', () => {
    spec.given([]).when({ type: 'StartStep', workflowId: 9, step: 0, action: 'send_webhook', now: 1 }).then([stepStarted(0)]);
    spec.given([stepStarted(0), stepDone(0)]).when({ type: 'StartStep', workflowId: 9, step: 0, action: 'send_webhook', now: 1 }).then([]);
    spec.given([]).when({ type: 'StartStep', workflowId: 9, step: 1, action: 'send_webhook', now: 1 }).thenThrows('step_out_of_order');
  });
  it('completes a step once', () => {
    const complete = { type: 'CompleteStep' as const, workflowId: 9, step: 0, action: 'send_webhook', result: { success: true }, attempts: 1, now: 2 };
    spec.given([stepStarted(0)]).when(complete).then([stepDone(0)]);
    spec.given([stepStarted(0), stepDone(0)]).when(complete).then([]);
  });
  it('finishes completed, or failed at the first failed step', () => {
    spec.given([stepStarted(0), stepDone(0)]).when({ type: 'FinishWorkflow', workflowId: 9, stepCount: 1, now: 3 }).then([{ type: 'WorkflowCompleted', data: { workflow_id: 9, completed_at: 3 } }]);
    spec.given([stepStarted(0), stepDone(0, false)]).when({ type: 'FinishWorkflow', workflowId: 9, stepCount: 2, now: 3 }).then([{ type: 'WorkflowFailed', data: { workflow_id: 9, failed_step: 0, failed_at: 3 } }]);
    spec.given([stepStarted(0)]).when({ type: 'FinishWorkflow', workflowId: 9, stepCount: 1, now: 3 }).thenThrows('steps_pending');
  });
  it('resumes at the step that was started but not completed', () => {
    expect(nextStep(fold(workflowDecider, [stepStarted(0), stepDone(0), stepStarted(1)]), 3)).toBe(1);
    expect(nextStep(fold(workflowDecider, [stepStarted(0), stepDone(0, false)]), 3)).toBeNull();
    expect(nextStep(fold(workflowDecider, [stepStarted(0), stepDone(0)]), 1)).toBeNull();
  });
});
