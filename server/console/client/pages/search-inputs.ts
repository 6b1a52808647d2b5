import type { Api } from '../api.js';
import { allPages } from '../api.js';
import { h, replace } from '../dom.js';
import { int } from '../format.js';

/** Filters whose values are completed from GET /v1/suggest, by the suggest field that completes them. */
export const SUGGESTED: Readonly<Record<string, string>> = {
  hashtags: 'hashtags',
  mentions: 'mentions',
  brands: 'brands',
  audience_interest: 'interests',
};

/** Waits this long after the last keystroke before asking for suggestions. */
const TYPING_PAUSE_MS = 150;

/**
 * A text input whose datalist offers the data's values for what is being typed.
 * For a comma list only the last item is completed: each option is the items
 * already typed plus one suggestion, so picking it keeps them.
 */
export function suggestInput(api: Api, field: string, id: string, name: string, value: string): HTMLElement {
  const list = h('datalist', { id: `${id}-values` });
  const input = h('input', {
    id,
    name,
    type: 'text',
    value,
    autocomplete: 'off',
    list: `${id}-values`,
    spellcheck: false,
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;
  const refresh = async (): Promise<void> => {
    const parts = input.value.split(',');
    const prefix = (parts.pop() ?? '').trim();
    const before = parts.map((p) => p.trim()).filter(Boolean);
    const ticket = ++asked;
    const page = await api
      .get<{ values: Array<{ value: string; creators: number }> }>('/v1/suggest', { field, prefix, limit: 10 })
      .catch(() => ({ values: [] }));
    if (ticket !== asked) return;
    replace(
      list,
      page.values.map((v) => h('option', { value: [...before, v.value].join(', ') }, `${int(v.creators)} creators`)),
    );
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), TYPING_PAUSE_MS);
  });
  input.addEventListener('focus', () => void refresh(), { once: true });
  return h('span', { class: 'suggest' }, input, list);
}

/** `exclude_list`: a multiple select of the account's own lists (creators on any chosen one are left out). */
export function listSelect(api: Api, id: string, name: string, value: string): HTMLSelectElement {
  const chosen = new Set(value.split(',').filter(Boolean));
  const select = h(
    'select',
    { id, name, multiple: true, size: 3 },
    h('option', { value: '', disabled: true }, 'Loading lists…'),
  );
  void allPages<{ id: string; name: string; creators_count: number }>(api, '/v1/lists').then(
    (lists) =>
      replace(
        select,
        lists.length === 0 ? h('option', { value: '', disabled: true }, 'No list yet') : null,
        lists.map((l) =>
          h('option', { value: l.id, selected: chosen.has(l.id) }, `${l.name} (${int(l.creators_count)})`),
        ),
      ),
    () => replace(select, h('option', { value: '', disabled: true }, 'Lists could not be loaded')),
  );
  return select;
}
