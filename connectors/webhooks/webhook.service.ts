import { normaliseHandle } from '../../data/creators/creator-profile.service.js';
import { ConflictError, LimitExceededError, NotFoundError, ValidationError } from '../../data/errors.js';
import { newId } from '../../data/ids.js';
import type { StateDb } from '../../data/state/state-db.js';
import { retryOnWriteConflict } from '../../core/keyed-queue.js';
import { ROTATION_GRACE_MS } from './config.js';
import { WebhookUrlError } from './errors.js';
import type { SecretBox } from './secret-box.js';
import { newSecret } from './signing.js';
import { checkDestination, type AllowList, type Resolver } from './ssrf-guard.js';
import { toWebhook, type Webhook, type WebhookFilter } from './webhook.mapper.js';
import * as q from './webhook.queries.js';

/** What the subscription rules need from config. */
export interface WebhookRules {
  allow: AllowList;
  /** The account's plan limit on subscriptions. */
  maxSubscriptions: number;
  /** Seals the signing secret before it is stored. */
  secrets: SecretBox;
  resolve?: Resolver;
}

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string | null | undefined;
  filter?: WebhookFilter | null | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function listWebhooks(
  state: StateDb,
  accountId: string,
  afterId: string | null,
  limit: number,
): Promise<Webhook[]> {
  return (await q.selectSubscriptions(state, accountId, afterId, limit, iso(Date.now()))).map(toWebhook);
}

/** The account's subscription, or a 404: another account's is indistinguishable from none. */
export async function getWebhook(state: StateDb, accountId: string, webhookId: string): Promise<Webhook> {
  const row = await q.selectSubscription(state, accountId, webhookId, iso(Date.now()));
  if (!row) throw notFound(webhookId);
  return toWebhook(row);
}

/**
 * Creates a subscription after the SSRF guard passed its URL (DNS included); the
 * plan's count check and the insert share a transaction. The secret is answered here
 * only, and stored sealed (SecretBox).
 */
export async function createWebhook(
  state: StateDb,
  accountId: string,
  input: WebhookInput,
  rules: WebhookRules,
): Promise<Webhook & { secret: string }> {
  await checkUrl(input.url, rules);
  const filter = await cleanFilter(state, accountId, input.filter);
  const webhookId = newId('whk');
  const secret = newSecret();
  const now = iso(Date.now());
  return state.transaction(async (tx) => {
    if ((await q.countSubscriptions(tx, accountId)) >= rules.maxSubscriptions) {
      throw new LimitExceededError(
        `your plan allows ${rules.maxSubscriptions} webhook subscriptions; delete one first`,
        { name: 'webhook_subscriptions', value: rules.maxSubscriptions },
      );
    }
    await q.insertSubscription(tx, {
      webhook_id: webhookId,
      account_id: accountId,
      url: input.url,
      events: cleanEvents(input.events),
      description: input.description ?? null,
      filter,
      secret: rules.secrets.seal(secret, webhookId),
      now,
    });
    const row = await q.selectSubscription(tx, accountId, webhookId, now);
    if (!row) throw new Error(`webhook ${webhookId} vanished after insert`);
    return { ...toWebhook(row), secret };
  });
}

/** Changes url (checked again), events, filter, description or status; absent fields stay. */
export async function updateWebhook(
  state: StateDb,
  accountId: string,
  webhookId: string,
  patch: Partial<WebhookInput> & { status?: 'enabled' | 'disabled' | undefined },
  rules: WebhookRules,
): Promise<Webhook> {
  if (patch.url !== undefined) await checkUrl(patch.url, rules);
  const clean: q.SubscriptionPatch = {};
  if (patch.url !== undefined) clean.url = patch.url;
  if (patch.events !== undefined) clean.events = cleanEvents(patch.events);
  if (patch.description !== undefined) clean.description = patch.description;
  if (patch.filter !== undefined) clean.filter = await cleanFilter(state, accountId, patch.filter);
  if (patch.status !== undefined) clean.status = patch.status;
  const changed = await retryOnWriteConflict(() =>
    q.updateSubscription(state, accountId, webhookId, clean, iso(Date.now())),
  );
  if (changed === 0) throw notFound(webhookId);
  return getWebhook(state, accountId, webhookId);
}

export async function deleteWebhook(state: StateDb, accountId: string, webhookId: string): Promise<void> {
  if (!(await retryOnWriteConflict(() => state.transaction((tx) => q.deleteSubscription(tx, accountId, webhookId)))))
    throw notFound(webhookId);
}

/** A new secret (answered once); the old one keeps signing for the grace period so receivers can switch over. */
export async function rotateWebhookSecret(
  state: StateDb,
  accountId: string,
  webhookId: string,
  secrets: SecretBox,
): Promise<Webhook & { secret: string }> {
  const secret = newSecret();
  const sealed = secrets.seal(secret, webhookId);
  const now = Date.now();
  const changed = await retryOnWriteConflict(() =>
    q.rotateSecret(state, accountId, webhookId, sealed, iso(now + ROTATION_GRACE_MS), iso(now)),
  );
  if (changed === 0) throw notFound(webhookId);
  return { ...(await getWebhook(state, accountId, webhookId)), secret };
}

/** Queues a `webhook.test` delivery to this subscription; answers its delivery and event ids. */
export async function sendTestEvent(
  state: StateDb,
  accountId: string,
  webhookId: string,
): Promise<{ delivery_id: string; event_id: string }> {
  const hook = await getWebhook(state, accountId, webhookId);
  if (hook.status !== 'enabled')
    throw new ConflictError(`webhook ${webhookId} is disabled; enable it (PATCH status) first`);
  const ids = { event_id: newId('evt'), delivery_id: newId('dlv') };
  const payload = JSON.stringify({
    webhook_id: webhookId,
    message: 'This is a test event from the Creator Data Service.',
  });
  await state.transaction((tx) =>
    q.insertTestDelivery(tx, { ...ids, account_id: accountId, webhook_id: webhookId, payload, now: iso(Date.now()) }),
  );
  return ids;
}

async function checkUrl(url: string, rules: WebhookRules): Promise<void> {
  try {
    await checkDestination(url, rules.allow, rules.resolve);
  } catch (error) {
    if (error instanceof WebhookUrlError) throw ValidationError.field('url', error.message);
    throw error;
  }
}

function cleanEvents(events: readonly string[]): string[] {
  return events.includes('*') ? ['*'] : [...new Set(events)].sort();
}

/** Normalises handles to `@name` and insists every list id is one of the account's lists. */
async function cleanFilter(
  state: StateDb,
  accountId: string,
  filter: WebhookFilter | null | undefined,
): Promise<string | null> {
  if (!filter) return null;
  const out: WebhookFilter = {};
  if (filter.list_ids?.length) {
    const own = await q.ownListIds(state, accountId, filter.list_ids);
    const foreign = filter.list_ids.filter((id) => !own.has(id));
    if (foreign.length > 0)
      throw ValidationError.field('filter.list_ids', `no list ${foreign.join(', ')} in your account`);
    out.list_ids = [...new Set(filter.list_ids)];
  }
  if (filter.handles?.length) {
    const handles = filter.handles.map((h) => normaliseHandle(h));
    if (handles.some((h) => h === null))
      throw ValidationError.field('filter.handles', 'handles look like @name (letters, digits, . _ -)');
    out.handles = [...new Set(handles as string[])];
  }
  if (filter.campaign_ids?.length) out.campaign_ids = [...new Set(filter.campaign_ids)];
  return Object.keys(out).length > 0 ? JSON.stringify(out) : null;
}

export function notFound(webhookId: string): NotFoundError {
  return new NotFoundError(`no webhook ${webhookId} in your account`);
}
