export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './domain/eventTypes.ts';
export { webhookEndpointDecider, type WebhookEndpointEvent } from './domain/webhookEndpoint.ts';
