export { type BlockReason, classifyAddress } from './addressClassifier.ts';
export {
  blockedAddressMessage,
  CONTROLLED_HEADERS,
  guardedAgent,
  MAX_RESPONSE_BODY,
  type OutboundRequest,
  retryable,
  type SendOptions,
  sendOnce,
  sendRequest,
  USER_AGENT,
  type WebhookResult,
} from './guardedClient.ts';
