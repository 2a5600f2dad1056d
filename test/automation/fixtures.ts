import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import type { Action } from '../../modules/automation/domain/actions.ts';
import type { TestServer } from '../helpers/testServer.ts';

export const TEST_ENV = {
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1,localhost',
  // Generous: a receiver on loopback answers in milliseconds, but a busy 2-core CI machine can stall
  // a process for a second, and a spurious timeout would add an attempt the tests count. The
  // hanging-receiver test sets its own short timeout.
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_CONNECT_TIMEOUT_MS: '3000',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_MAX_ATTEMPTS: '3',
};

export function webhookAction(url: string, over: Partial<Extract<Action, { type: 'send_webhook' }>> = {}): Action {
  return { type: 'send_webhook', url, method: 'POST', payload: '{"email":"{{webhook_payload.email}}"}', headers: {}, signing_secret: null, ...over };
}

/** A sequence with the given actions and one webhook trigger; returns its catch path. */
export async function automationFixture(server: TestServer, organizationId: string, actions: Action[], options: { enabled?: boolean } = {}) {
  const ctx = server.cliContext(organizationId);
  const sequence = await createSequence(ctx, { organizationId, name: 'Test sequence', actions });
  const trigger = await createTrigger(ctx, { organizationId, sequenceId: sequence.id, name: 'Test trigger', enabled: options.enabled ?? true });
  await server.settle();
  return { sequence, trigger, path: `/hooks/catch/${sequence.route_key}/${trigger.route_key}` };
}
