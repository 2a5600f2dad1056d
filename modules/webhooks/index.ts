export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './domain/eventTypes.ts';
export { webhookEndpointDecider, type WebhookEndpointEvent } from './domain/webhookEndpoint.ts';
// Answers of the endpoint routes, whose types the dashboard imports (type-only).
export { Delivery as WebhookDeliverySchema, Endpoint as WebhookEndpointSchema } from './http/endpointSchemas.ts';
