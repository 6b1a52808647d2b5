import type { ApiKeyView as Key, NewKeyView } from '../../../../data/keys/account-keys.service.js';
import { h, replace, table, valueOf } from '../dom.js';
import { when } from '../format.js';
import { guarded, heading, message, type View } from '../view.js';
import { confirmButton } from './lists.js';
import { secretPanel } from './secret.js';

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** How long a rotated key's old secret keeps working, offered on the Rotate button. */
const GRACE_CHOICES: ReadonlyArray<[number, string]> = [
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [604_800, '7 days'],
  [0, 'none (stop at once)'],
];

/** A secret just made, shown by the next drawing of the page and then dropped (it is never kept). */
let freshSecret: { title: string; key: string } | null = null;

/** #/keys: your account's keys; create (secret shown once), rotate, revoke. Writing needs `keys:write`. */
export async function keysPage(view: View): Promise<void> {
  if (!view.can('keys:write')) {
    replace(
      view.root,
      heading('API keys'),
      message(
        'info',
        'The key you signed in with cannot see or manage keys: that takes the ' +
          "keys:write scope, which the account's owner key holds. Sign in with the owner key to manage keys.",
      ),
    );
    return;
  }
  const page = await view.api.get<Page<Key>>('/v1/keys', { limit: 100, cursor: view.query.get('cursor') });
  if (view.signal.aborted) return;
  const secret = h('div');
  const slot = h('div', { class: 'slot' });
  const grace = h(
    'select',
    { id: 'grace', name: 'grace' },
    GRACE_CHOICES.map(([s, t]) => h('option', { value: s, selected: s === 86_400 }, t)),
  );
  replace(
    view.root,
    heading('API keys'),
    secret,
    slot,
    h('div', { class: 'inline' }, h('label', { for: 'grace' }, 'On rotation the old secret keeps working for'), grace),
    table(
      ['Name', 'Prefix', 'Scopes', 'Status', 'Created', 'Expires', 'Last used', ''],
      page.data.map((k) => [
        h(
          'span',
          null,
          k.name,
          k.owner ? h('span', { class: 'badge' }, 'owner') : null,
          k.id === view.account.key.key_id ? h('span', { class: 'badge' }, 'this session') : null,
        ),
        h('code', null, k.key_prefix),
        k.scopes.join(', '),
        statusText(k),
        when(k.created_at),
        when(k.expires_at),
        when(k.last_used_at),
        k.status === 'active' ? keyActions(view, k, grace, slot) : null,
      ]),
      'No keys.',
    ),
    page.next_cursor
      ? h('a', { class: 'button', href: `#/keys?cursor=${encodeURIComponent(page.next_cursor)}` }, 'More keys ›')
      : null,
    createForm(view),
  );
  if (freshSecret) showSecret(secret, freshSecret.title, freshSecret.key);
  freshSecret = null;
}

function statusText(k: Key): string {
  const rotation = k.rotation
    ? ` (old ${k.rotation.previous_key_prefix}… works until ${when(k.rotation.previous_expires_at)})`
    : '';
  return `${k.status}${rotation}`;
}

function keyActions(view: View, k: Key, grace: HTMLSelectElement, slot: HTMLElement): HTMLElement {
  return h(
    'span',
    { class: 'inline' },
    confirmButton(`Rotate ${k.name}`, 'Rotate', () =>
      guarded(slot, async () => {
        const rotated = await view.api.send<NewKeyView>('POST', `/v1/keys/${k.id}/rotate`, {
          grace_seconds: Number(grace.value),
        });
        freshSecret = { title: `New secret of ${rotated.name}`, key: rotated.key };
        view.reload();
      }),
    ),
    confirmButton(`Revoke ${k.name}`, 'Revoke', () =>
      guarded(slot, async () => {
        await view.api.send('DELETE', `/v1/keys/${k.id}`);
        view.reload();
      }),
    ),
  );
}

function showSecret(slot: HTMLElement, title: string, key: string): void {
  replace(slot, secretPanel(title, key, 'Copy it now: it is shown only once. The server keeps only a hash of it.'));
  slot.querySelector('button')?.focus();
}

function createForm(view: View): HTMLElement {
  const slot = h('div', { class: 'slot' });
  // admin is never granted through the API; keys:write (an owner key) and contacts:read (metered reveals) are opt-in
  const scopes = view.account.key.scopes.filter((s) => s !== 'admin');
  const form = h(
    'form',
    { class: 'card', 'aria-label': 'New key' },
    h('h2', null, 'New key'),
    h(
      'div',
      { class: 'row' },
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'key-name' }, 'Name'),
        h('input', { id: 'key-name', name: 'name', required: true, maxlength: 100 }),
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'key-expires' }, 'Expires on (optional, UTC)'),
        h('input', { id: 'key-expires', name: 'expires', type: 'date' }),
      ),
    ),
    h(
      'fieldset',
      { class: 'choices' },
      h('legend', null, 'Scopes (at most those of the key you signed in with)'),
      scopes.map((s) =>
        h(
          'label',
          { class: 'check' },
          h('input', {
            type: 'checkbox',
            name: 'scopes',
            value: s,
            checked: s !== 'keys:write' && s !== 'contacts:read',
          }),
          ` ${s}`,
        ),
      ),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Create key'),
    slot,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void guarded(slot, async () => {
      const chosen = new FormData(form).getAll('scopes').map(String);
      const expires = valueOf(form, 'expires');
      const created = await view.api.send<NewKeyView>('POST', '/v1/keys', {
        name: valueOf(form, 'name'),
        scopes: chosen,
        ...(expires ? { expires_at: `${expires}T23:59:59Z` } : {}),
      });
      freshSecret = { title: `Secret of the new key ${created.name}`, key: created.key };
      view.reload();
    });
  });
  return form;
}
