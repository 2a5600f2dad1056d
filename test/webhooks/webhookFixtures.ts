import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { SOURCE_STREAM_PREFIXES } from '../../modules/webhooks/domain/eventTypes.ts';
import { secretBox } from '../../platform/lib/secretBox.ts';
import { createWebhookEndpoint } from '../../modules/webhooks/webhookEndpointCommands.ts';
import { WEBHOOK_FANOUT_CHECKPOINT } from '../../modules/webhooks/jobs/webhookJob.ts';
import { WEBHOOK_ATTEMPTS, WEBHOOK_DELIVERIES, type AttemptDoc, type DeliveryDoc } from '../../modules/webhooks/webhookProjection.ts';
import type { ReceivedCall } from '../helpers/receiver.ts';
import type { TestServer } from '../helpers/testServer.ts';

export const WEBHOOK_ENV = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CONNECT_TIMEOUT_MS: '1000', CHECKOUT_RATE_LIMIT: '10000' };

export async function subscribe(server: TestServer, organizationId: string, url: string, eventTypes: string[], enabled = true) {
  return createWebhookEndpoint(server.cliContext(organizationId), secretBox(server.services.secrets.jwt), { organizationId, url, eventTypes, enabled });
}

/** Verifies a received call with the Standard Webhooks library, as a receiver would; returns the parsed body. */
export function verified(secret: string, call: ReceivedCall): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const headers = Object.fromEntries(Object.entries(call.headers).map(([k, v]) => [k, String(v)]));
  return new Webhook(secret).verify(call.body, headers) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Waits until the fan-out has handled every event it follows, and the read models show its deliveries. */
export async function fannedOut(server: TestServer): Promise<void> {
  const sources = await server.services.store.readAll({ after: null, limit: 1_000_000, streamPrefixes: SOURCE_STREAM_PREFIXES });
  const head = sources.at(-1)?.position ?? null;
  const until = Date.now() + 20_000;
  for (;;) {
    const checkpoint = await server.services.readStore.readCheckpoint(WEBHOOK_FANOUT_CHECKPOINT);
    if (head === null || (checkpoint !== null && checkpoint >= head)) break;
    if (Date.now() > until) throw new Error('fan-out did not catch up');
    await new Promise((r) => setTimeout(r, 25));
  }
  await server.settle();
}

export const deliveriesOf = (server: TestServer, endpointId: string) =>
  server.services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: endpointId }, sort: [['position', 1]] });

export const attemptsOf = (server: TestServer, deliveryId: string) =>
  server.services.readStore.find<AttemptDoc>(WEBHOOK_ATTEMPTS, { filter: { delivery_id: deliveryId }, sort: [['attempt', 1]] });

export const answer = (status: number, body = '') => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(body);
};
