import type { CreatorList } from '../../../../data/lists/list.mapper.js';
import { actionButton, h, replace, table, valueOf } from '../dom.js';
import { int, pct, when } from '../format.js';
import { guarded, heading, message, type View } from '../view.js';
import { overlapCard } from './list-overlap.js';
import { profileHref, type CreatorItem } from './creators.js';

type List = CreatorList;
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
type Member = CreatorItem & { added_at: string };

/** #/lists: your lists, create one, delete one. */
export async function listsPage(view: View): Promise<void> {
  const page = await view.api.get<Page<List>>('/v1/lists', { limit: 100, cursor: view.query.get('cursor') });
  if (view.signal.aborted) return;
  const slot = h('div', { class: 'slot' });
  replace(
    view.root,
    heading('Lists'),
    view.can('lists:write') ? createForm(view) : null,
    slot,
    table(
      ['Name', 'Creators', 'Created', 'Updated', ''],
      page.data.map((l) => [
        h('a', { href: `#/lists/${l.id}` }, l.name, l.description ? h('span', { class: 'sub' }, l.description) : null),
        int(l.creators_count),
        when(l.created_at),
        when(l.updated_at),
        view.can('lists:write')
          ? confirmButton(`Delete ${l.name}`, 'Delete', () =>
              guarded(slot, async () => {
                await view.api.send('DELETE', `/v1/lists/${l.id}`);
                view.reload();
              }),
            )
          : null,
      ]),
      'No list yet.',
    ),
    page.next_cursor
      ? h('a', { class: 'button', href: `#/lists?cursor=${encodeURIComponent(page.next_cursor)}` }, 'More lists ›')
      : null,
  );
}

function createForm(view: View): HTMLElement {
  const slot = h('div', { class: 'slot' });
  const form = h(
    'form',
    { class: 'card row', 'aria-label': 'New list' },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'list-name' }, 'New list name'),
      h('input', { id: 'list-name', name: 'name', required: true, maxlength: 100 }),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'list-description' }, 'Description (optional)'),
      h('input', { id: 'list-description', name: 'description', maxlength: 1000 }),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Create list'),
    slot,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void guarded(slot, async () => {
      const description = valueOf(form, 'description');
      const created = await view.api.send<List>('POST', '/v1/lists', {
        name: valueOf(form, 'name'),
        description: description || null,
      });
      view.go(`#/lists/${created.id}`);
    });
  });
  return form;
}

/** #/lists/{id}: the members, add by handle, remove. */
export async function listPage(view: View): Promise<void> {
  const id = view.params['id'] ?? '';
  const [list, members] = await Promise.all([
    view.api.get<List>(`/v1/lists/${encodeURIComponent(id)}`),
    view.api.get<Page<Member>>(`/v1/lists/${encodeURIComponent(id)}/creators`, {
      limit: 50,
      cursor: view.query.get('cursor'),
    }),
  ]);
  if (view.signal.aborted) return;
  const slot = h('div', { class: 'slot' });
  const write = view.can('lists:write');
  replace(
    view.root,
    heading(list.name, h('a', { href: '#/lists', class: 'sub' }, '‹ All lists')),
    h(
      'p',
      null,
      `${int(list.creators_count)} creators. `,
      list.description ?? '',
      ' Add creators here by handle, or tick them in a ',
      h('a', { href: '#/creators' }, 'search'),
      ' and use “Add selected to list”.',
    ),
    write ? addForm(view, id) : null,
    slot,
    table(
      ['Creator', 'Platform', 'Niche', 'Followers', 'Engagement', 'Added', ''],
      members.data.map((m) => [
        h('a', { href: profileHref(m) }, m.handle),
        m.platform,
        m.niche,
        int(m.followers),
        pct(m.engagement_rate),
        when(m.added_at),
        write
          ? actionButton(
              'Remove',
              () =>
                guarded(slot, async () => {
                  await view.api.send(
                    'DELETE',
                    `/v1/lists/${id}/creators/${encodeURIComponent(m.handle)}?platform=${m.platform}`,
                  );
                  view.reload();
                }),
              { 'aria-label': `Remove ${m.handle} on ${m.platform}` },
            )
          : null,
      ]),
      'This list is empty.',
    ),
    overlapCard(view, members.data),
    members.next_cursor
      ? h(
          'a',
          { class: 'button', href: `#/lists/${id}?cursor=${encodeURIComponent(members.next_cursor)}` },
          'Next page ›',
        )
      : null,
  );
}

function addForm(view: View, id: string): HTMLElement {
  const slot = h('div', { class: 'slot' });
  const form = h(
    'form',
    { class: 'card row', 'aria-label': 'Add creators' },
    h(
      'div',
      { class: 'field grow' },
      h('label', { for: 'add-handles' }, 'Handles (comma or space separated; @name or platform:@name)'),
      h('input', { id: 'add-handles', name: 'handles', required: true, autocomplete: 'off' }),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Add'),
    slot,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void guarded(slot, async () => {
      const creators = valueOf(form, 'handles')
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((t) => {
          const [a, b] = t.split(':');
          return b ? { platform: a, handle: b } : { handle: t };
        });
      const r = await view.api.send<{
        added: number;
        already_present: number;
        not_found: Array<{ handle: string; reason: string }>;
      }>('POST', `/v1/lists/${id}/creators`, { creators });
      if (r.not_found.length > 0) {
        replace(
          slot,
          message(
            'error',
            `Added ${r.added}. Not added: ${r.not_found.map((n) => `${n.handle} (${n.reason})`).join(', ')}`,
          ),
        );
      } else view.reload();
    });
  });
  return form;
}

/**
 * A destructive action in two steps (click, then "Confirm"), so a stray key
 * press or click does not delete anything; no modal dialog is needed.
 */
export function confirmButton(label: string, text: string, action: () => Promise<void>): HTMLElement {
  const wrap = h('span', { class: 'confirm' });
  const ask = h('button', { type: 'button', 'aria-label': label, class: 'danger' }, text);
  ask.addEventListener('click', () => {
    const yes = actionButton(`Confirm ${text.toLowerCase()}`, action, { class: 'danger' });
    const no = h('button', { type: 'button', onclick: () => replace(wrap, ask) }, 'Cancel');
    replace(wrap, yes, no);
    yes.focus();
  });
  wrap.append(ask);
  return wrap;
}
