/**
 * Webhook delivery connector: signing, the SSRF guard, fan-out of the events
 * outbox into deliveries, and the durable delivery worker.
 */
export { webhookWorkerOptions, ROTATION_GRACE_MS, type WebhookWorkerOptions } from './config.js';
export { WebhookClient, type OutboundRequest, type SendResult } from './client.js';
export { DeliveryWorker } from './delivery.worker.js';
export { SsrfBlockedError, WebhookUrlError, classifyResponse, type AttemptOutcome } from './errors.js';
export { fanOut } from './fan-out.js';
export { deliveryBody, signingSecrets } from './payload.js';
export { nextRetryDelayMs, FAILING_DISABLE_MS } from './retry-policy.js';
export { newSecret, signatureFor, signedHeaders } from './signing.js';
export {
  AllowList,
  cachingResolver,
  checkDestination,
  isRefusedAddress,
  parseWebhookUrl,
  type Resolver,
} from './ssrf-guard.js';
