import { allPages } from '../api.js';
import { actionButton, h, replace, table, valueOf } from '../dom.js';
import { when } from '../format.js';
import { guarded, heading, message, sleep, type OpenApiDoc, type View } from '../view.js';
import { confirmButton } from './lists.js';
import { secretPanel } from './secret.js';

interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  filter: { list_ids?: string[]; handles?: string[] } | null;
  created_at: string;
  updated_at: string;
}
interface Attempt {
  attempt: number;
  started_at: string;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
}
interface Delivery {
  id: string;
  event_type: string;
  status: string;
  attempts_made: number;
  last_status_code: number | null;
  last_error: string | null;
  next_retry_at: string | null;
  created_at: string;
  attempts: Attempt[];
}

/** The subscription just created and its secret: shown by the next drawing of the page, then dropped (never kept). */
let created: { id: string; secret: string | null } | null = null;

/** #/webhooks: subscriptions and a form to add one. */
export async function webhooksPage(view: View): Promise<void> {
  const [hooks, doc] = await Promise.all([allPages<Webhook>(view.api, '/v1/webhooks'), view.openapi()]);
  if (view.signal.aborted) return;
  const fresh = created;
  created = null;
  replace(
    view.root,
    heading('Webhooks'),
    fresh ? newSubscription(fresh.id, fresh.secret) : null,
    table(
      ['Endpoint', 'Events', 'Status', 'Created'],
      hooks.map((w) => [
        h(
          'a',
          { href: `#/webhooks/${w.id}` },
          w.url,
          w.description ? h('span', { class: 'sub' }, w.description) : null,
        ),
        w.events.join(', '),
        statusText(w),
        when(w.created_at),
      ]),
      'No subscription yet.',
    ),
    view.can('webhooks:write')
      ? h(
          'section',
          { class: 'card' },
          h('h2', null, 'New subscription'),
          webhookForm(view, eventNames(doc), null, async (body) => {
            const hook = await view.api.send<Webhook & { secret: string | null }>('POST', '/v1/webhooks', body);
            created = { id: hook.id, secret: hook.secret };
            view.reload();
          }),
        )
      : null,
  );
  view.root.querySelector<HTMLElement>('.secret-panel button')?.focus();
}

function newSubscription(id: string, secret: string | null): HTMLElement {
  return h(
    'div',
    null,
    secret
      ? secretPanel(
          'Signing secret of the new subscription',
          secret,
          "Verify each delivery's webhook-signature with it. It is shown only now.",
        )
      : null,
    h(
      'p',
      null,
      h('a', { href: `#/webhooks/${id}` }, 'Open the new subscription, send a test and watch its deliveries ›'),
    ),
  );
}

function statusText(w: Webhook): string {
  return w.status === 'enabled' ? 'enabled' : `disabled${w.disabled_reason ? ` (${w.disabled_reason})` : ''}`;
}

/** Event names a subscription may take, from the create operation's schema in the OpenAPI document. */
function eventNames(doc: OpenApiDoc): string[] {
  const op = doc.paths['/v1/webhooks']?.['post'] as
    | { requestBody?: { content?: Record<string, { schema?: unknown }> } }
    | undefined;
  const schema = op?.requestBody?.content?.['application/json']?.schema as
    | { properties?: { events?: { items?: { enum?: string[] } } } }
    | undefined;
  return schema?.properties?.events?.items?.enum ?? ['*'];
}

type WebhookBody = {
  url: string;
  events: string[];
  description: string | null;
  filter?: { list_ids?: string[]; handles?: string[] } | null;
};

/** Create and edit share one form: URL, events, description, filter. */
function webhookForm(
  view: View,
  events: string[],
  current: Webhook | null,
  save: (body: WebhookBody) => Promise<void>,
): HTMLFormElement {
  const slot = h('div', { class: 'slot' });
  const chosen = new Set(current?.events ?? ['*']);
  const form = h(
    'form',
    { 'aria-label': current ? 'Edit subscription' : 'New subscription' },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'wh-url' }, 'Endpoint URL'),
      h('input', {
        id: 'wh-url',
        name: 'url',
        type: 'url',
        required: true,
        value: current?.url ?? '',
        placeholder: 'https://example.com/hooks/cds',
      }),
    ),
    h(
      'fieldset',
      { class: 'choices' },
      h('legend', null, 'Events'),
      events.map((e) =>
        h(
          'label',
          { class: 'check' },
          h('input', { type: 'checkbox', name: 'events', value: e, checked: chosen.has(e) }),
          ` ${e === '*' ? '* (all)' : e}`,
        ),
      ),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'wh-description' }, 'Description'),
      h('input', { id: 'wh-description', name: 'description', maxlength: 500, value: current?.description ?? '' }),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'wh-handles' }, 'Only these handles (creator.updated; optional, comma separated)'),
      h('input', { id: 'wh-handles', name: 'handles', value: current?.filter?.handles?.join(', ') ?? '' }),
    ),
    listFilter(view, current?.filter?.list_ids ?? []),
    h('button', { type: 'submit', class: 'primary' }, current ? 'Save changes' : 'Create subscription'),
    slot,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void guarded(slot, () => save(bodyOf(form)));
  });
  return form;
}

function listFilter(view: View, ticked: string[]): HTMLElement {
  const box = h(
    'fieldset',
    { class: 'choices' },
    h('legend', null, 'Only creators on these lists (creator.updated; optional)'),
  );
  void allPages<{ id: string; name: string }>(view.api, '/v1/lists').then((lists) =>
    box.append(
      ...(lists.length === 0
        ? [h('span', { class: 'sub' }, 'You have no list.')]
        : lists.map((l) =>
            h(
              'label',
              { class: 'check' },
              h('input', { type: 'checkbox', name: 'list_ids', value: l.id, checked: ticked.includes(l.id) }),
              ` ${l.name}`,
            ),
          )),
    ),
  );
  return box;
}

function bodyOf(form: HTMLFormElement): WebhookBody {
  const data = new FormData(form);
  const handles = valueOf(form, 'handles')
    .split(/[\s,]+/)
    .filter(Boolean);
  const listIds = data.getAll('list_ids').map(String);
  const filter =
    handles.length || listIds.length
      ? { ...(handles.length ? { handles } : {}), ...(listIds.length ? { list_ids: listIds } : {}) }
      : null;
  const events = data.getAll('events').map(String);
  return {
    url: valueOf(form, 'url'),
    events: events.length ? events : ['*'],
    description: valueOf(form, 'description') || null,
    filter,
  };
}

/** #/webhooks/{id}: edit, enable/disable, send a test, the delivery log with replay. */
export async function webhookPage(view: View): Promise<void> {
  const id = view.params['id'] ?? '';
  const [hook, doc] = await Promise.all([
    view.api.get<Webhook>(`/v1/webhooks/${encodeURIComponent(id)}`),
    view.openapi(),
  ]);
  if (view.signal.aborted) return;
  const slot = h('div', { class: 'slot' });
  const log = h('section', { class: 'card', 'aria-labelledby': 'log-title' });
  const write = view.can('webhooks:write');
  replace(
    view.root,
    heading('Webhook', h('a', { href: '#/webhooks', class: 'sub' }, '‹ All webhooks')),
    h('p', { class: 'lead' }, hook.url, ' · ', h('span', { class: `status status-${hook.status}` }, statusText(hook))),
    write
      ? h(
          'div',
          { class: 'actions' },
          actionButton('Send test event', () =>
            guarded(slot, async () => {
              const r = await view.api.send<{ delivery_id: string }>('POST', `/v1/webhooks/${id}/test`);
              replace(slot, message('ok', `Test event queued as ${r.delivery_id}; it appears in the log below.`));
              await refreshLog(view, id, log, write);
            }),
          ),
          actionButton(hook.status === 'enabled' ? 'Disable' : 'Enable', () =>
            guarded(slot, async () => {
              await view.api.send('PATCH', `/v1/webhooks/${id}`, {
                status: hook.status === 'enabled' ? 'disabled' : 'enabled',
              });
              view.reload();
            }),
          ),
          confirmButton('Delete this subscription', 'Delete', () =>
            guarded(slot, async () => {
              await view.api.send('DELETE', `/v1/webhooks/${id}`);
              view.go('#/webhooks');
            }),
          ),
        )
      : null,
    slot,
    log,
    write
      ? h(
          'details',
          { class: 'card' },
          h('summary', null, 'Edit subscription'),
          webhookForm(view, eventNames(doc), hook, async (body) => {
            await view.api.send('PATCH', `/v1/webhooks/${id}`, body);
            view.reload();
          }),
        )
      : null,
  );
  await refreshLog(view, id, log, write);
  void followLog(view, id, log, write);
}

/** While a delivery is pending or sending, the log is read again every 1.5 s (until the page is left). */
async function followLog(view: View, id: string, log: HTMLElement, write: boolean): Promise<void> {
  while (!view.signal.aborted) {
    await sleep(1500, view.signal);
    if (view.signal.aborted || !log.querySelector('[data-open]')) continue;
    await refreshLog(view, id, log, write).catch(() => undefined);
  }
}

async function refreshLog(view: View, id: string, log: HTMLElement, write: boolean): Promise<void> {
  const page = await view.api.get<{ data: Delivery[] }>(`/v1/webhooks/${id}/deliveries`, { limit: 50 });
  if (view.signal.aborted) return;
  const slot = h('div', { class: 'slot' });
  replace(
    log,
    h('h2', { id: 'log-title' }, 'Delivery log'),
    h(
      'div',
      { class: 'actions' },
      actionButton('Refresh', () => guarded(slot, () => refreshLog(view, id, log, write))),
    ),
    slot,
    table(
      ['Created', 'Event', 'State', 'Status code', 'Latency', 'Attempts', 'Error', ''],
      page.data.map((d) => {
        const last = d.attempts[d.attempts.length - 1];
        return [
          when(d.created_at),
          d.event_type,
          h(
            'span',
            {
              class: `status status-${d.status}`,
              'data-open': d.status === 'pending' || d.status === 'sending' ? '' : null,
            },
            d.status,
          ),
          d.last_status_code === null ? '–' : String(d.last_status_code),
          last?.latency_ms === null || last === undefined ? '–' : `${Math.round(last.latency_ms)} ms`,
          attemptsDetail(d),
          d.last_error ?? '',
          write && d.status !== 'pending' && d.status !== 'sending'
            ? actionButton(
                'Replay',
                () =>
                  guarded(slot, async () => {
                    await view.api.send('POST', `/v1/webhooks/${id}/deliveries/${d.id}/retry`);
                    await refreshLog(view, id, log, write);
                  }),
                { 'aria-label': `Replay delivery ${d.id}` },
              )
            : null,
        ];
      }),
      'No delivery yet: send a test event.',
    ),
  );
}

function attemptsDetail(d: Delivery): HTMLElement | string {
  if (d.attempts.length === 0) return String(d.attempts_made);
  return h(
    'details',
    null,
    h('summary', null, String(d.attempts_made)),
    h(
      'ol',
      null,
      d.attempts.map((a) =>
        h(
          'li',
          null,
          `${when(a.started_at)}: ${a.status_code ?? 'no answer'}, ${a.latency_ms === null ? '–' : `${Math.round(a.latency_ms)} ms`}` +
            (a.error ? `, ${a.error}` : ''),
        ),
      ),
    ),
  );
}
