/**
 * Notification delivery mechanics: the HTTP attempt, the retry schedule and the callback-URL
 * policy (SSRF guard). The outbox and worker live elsewhere and call these. See README.md here.
 */
export { createDeliveryConnections, type DeliveryConnections } from './connections.ts';
export { deliverNotification, DEFAULT_DELIVERY_TIMEOUT_MS, type DeliveryOptions } from './deliver.ts';
export {
  DELIVERY_ERROR_CLASSES,
  EXCERPT_MAX_CHARS,
  MAX_BODY_BYTES,
  type AttemptResult,
  type DeliveryErrorClass,
} from './outcome.ts';
export {
  MAX_DELIVERY_ATTEMPTS,
  nextRetryDelayMs,
  RETRY_JITTER_FRACTION,
  RETRY_SCHEDULE_SECONDS,
  type RetryDelayOptions,
} from './schedule.ts';
export { JSON_QUOTED_ACK_NOTE } from './http-post.ts';
export { checkCallbackUrl, type CallbackUrlCheck } from './callback-url.ts';
export { classifyAddress, describeRefusal, type AddressVerdict, type ForbiddenRange } from './address-policy.ts';
export { resolveDeliveryAddresses, type ResolveOutcome } from './resolve.ts';
