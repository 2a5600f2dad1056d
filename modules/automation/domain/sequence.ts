import { conflict, type Decider, type DomainEvent, invalid, notFound } from '../../../platform/domain/index.ts';
import { HEADER_VALUE_MESSAGE, isSigningSecret, isWebhookUrl, payloadTemplateIssue, SIGNING_SECRET_MESSAGE, unsendableHeader, type Action, type ActionInput } from './actions.ts';

export type SequenceStatus = 'active' | 'paused';

export type SequenceEvent =
  | DomainEvent<
      'SequenceCreated',
      {
        id: number;
        organization_id: string;
        /** The importer's own id of the sequence (re-importing it finds this one), or null. */
        key: string | null;
        name: string;
        status: SequenceStatus;
        /** The secret first segment of its catch URLs. */
        route_key: string;
        actions: Action[];
        created_at: number;
      }
    >
  /** A re-import changed its name, status or actions; workflows already started keep their snapshot. */
  | DomainEvent<'SequenceUpdated', { name: string; status: SequenceStatus; actions: Action[]; updated_at: number }>
  | DomainEvent<'SequencePaused', { paused_at: number }>
  | DomainEvent<'SequenceResumed', { resumed_at: number }>;

export type SequenceCommand =
  | {
      type: 'CreateSequence';
      id: number;
      organizationId: string;
      key: string | null;
      name: string;
      status: SequenceStatus;
      routeKey: string;
      actions: ActionInput[];
      now: number;
    }
  | { type: 'UpdateSequence'; name: string; status: SequenceStatus; actions: ActionInput[]; now: number }
  | { type: 'PauseSequence'; now: number }
  | { type: 'ResumeSequence'; now: number };

export type SequenceState =
  | { status: 'none' }
  | { status: SequenceStatus; id: number; organizationId: string; name: string; routeKey: string; actions: Action[] };

export const sequenceStream = (id: number) => `automation_sequence-${id}`;

/**
 * An import key is claimed once per organization on its own stream (created with no_stream), as
 * products claim theirs: an import finds the sequence of a key from events alone, and two
 * concurrent imports of one key make one sequence. `keyHash` digests organization and key.
 */
export const sequenceKeyStream = (keyHash: string) => `automation_sequence_key-${keyHash}`;
export type SequenceKeyClaimedEvent = DomainEvent<'SequenceKeyClaimed', { organization_id: string; key: string; sequence_id: number }>;

export const sequenceDecider: Decider<SequenceState, SequenceCommand, SequenceEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'SequenceCreated': {
        const d = event.data;
        return { status: d.status, id: d.id, organizationId: d.organization_id, name: d.name, routeKey: d.route_key, actions: d.actions };
      }
      case 'SequenceUpdated':
        return state.status === 'none' ? state : { ...state, status: event.data.status, name: event.data.name, actions: event.data.actions };
      case 'SequencePaused':
        return state.status === 'none' ? state : { ...state, status: 'paused' };
      case 'SequenceResumed':
        return state.status === 'none' ? state : { ...state, status: 'active' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateSequence': {
        if (state.status !== 'none') throw conflict('sequence_exists', 'The sequence already exists.');
        if (command.name.trim() === '') throw invalid('invalid_name', 'The name field is required.', 'name');
        const actions = command.actions.map((a, i) => withSecret(a, i, []));
        actions.forEach(checkAction);
        return {
          type: 'SequenceCreated',
          data: {
            id: command.id,
            organization_id: command.organizationId,
            key: command.key,
            name: command.name,
            status: command.status,
            route_key: command.routeKey,
            actions,
            created_at: command.now,
          },
        };
      }
      case 'UpdateSequence': {
        if (state.status === 'none') throw notFound('Sequence');
        if (command.name.trim() === '') throw invalid('invalid_name', 'The name field is required.', 'name');
        const actions = command.actions.map((a, i) => withSecret(a, i, state.actions));
        actions.forEach(checkAction);
        const same = state.name === command.name && state.status === command.status && JSON.stringify(state.actions) === JSON.stringify(actions);
        if (same) return [];
        return { type: 'SequenceUpdated', data: { name: command.name, status: command.status, actions, updated_at: command.now } };
      }
      case 'PauseSequence':
        if (state.status === 'none') throw notFound('Sequence');
        return state.status === 'paused' ? [] : { type: 'SequencePaused', data: { paused_at: command.now } };
      case 'ResumeSequence':
        if (state.status === 'none') throw notFound('Sequence');
        return state.status === 'active' ? [] : { type: 'SequenceResumed', data: { resumed_at: command.now } };
    }
  },
};

/**
 * The secret an action signs with. Secrets are write-only (answers say `signed`), so an edit may
 * leave one out to keep the secret of the step at the same position, or name the step whose
 * secret it keeps (`from_step`, when steps moved). A kept secret is not checked again: one saved
 * in an older form goes on signing.
 */
function withSecret(action: ActionInput, index: number, current: readonly Action[]): Action {
  if (action.type !== 'send_webhook') return action;
  const given = action.signing_secret;
  const field = `actions.${index}.signing_secret`;
  const secretOf = (step: number) => {
    const held = current[step];
    return held?.type === 'send_webhook' ? held.signing_secret : null;
  };
  let secret: string | null;
  if (given === undefined) secret = secretOf(index);
  else if (given === null) secret = null;
  else if (typeof given === 'object' && 'sealed' in given) secret = given.sealed;
  else if (typeof given === 'object') {
    secret = secretOf(given.from_step);
    if (secret === null) throw invalid('invalid_signing_secret', `from_step ${given.from_step}: the sequence has no signed Send Webhook at that position (counted from 0) whose secret to keep; give a secret, or null for none.`, field);
  } else {
    if (!isSigningSecret(given)) throw invalid('invalid_signing_secret', SIGNING_SECRET_MESSAGE, field);
    secret = given;
  }
  return { ...action, signing_secret: secret };
}

function checkAction(action: Action, index: number): void {
  const field = `actions.${index}`;
  if (action.type === 'send_webhook') {
    if (!isWebhookUrl(action.url)) throw invalid('invalid_url', 'The url field must be a valid http or https URL.', `${field}.url`);
    if (action.method === 'GET' && action.payload !== '') {
      throw invalid('payload_with_get', 'The payload field must be empty for GET.', `${field}.payload`);
    }
    const issue = payloadTemplateIssue(action, `action ${field}`);
    if (issue !== null) throw invalid('invalid_payload', issue, `${field}.payload`);
    const header = unsendableHeader(action.headers);
    if (header !== null) throw invalid('invalid_header', HEADER_VALUE_MESSAGE, `${field}.headers.${header}`);
  } else if (action.promo.trim() === '') {
    throw invalid('invalid_promo', 'The promo field is required.', `${field}.promo`);
  }
}
