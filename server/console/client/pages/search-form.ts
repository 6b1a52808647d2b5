import { CONTENT_FILTERS } from '../../../../data/creators/content-filters.js';
import type { Api } from '../api.js';
import { h, type Child } from '../dom.js';
import type { Meta, OpenApiDoc, OpenApiParameter } from '../view.js';
import { listSelect, SUGGESTED, suggestInput } from './search-inputs.js';

/** Parameters the form does not offer as filters: paging is the page's own, sort has its own control. */
const NOT_FILTERS = new Set(['limit', 'cursor', 'sort']);
const CSV_ENUM = /One or a comma list of: (.+)$/;

/** The search's query parameters as the OpenAPI document declares them. */
export function searchParameters(doc: OpenApiDoc): OpenApiParameter[] {
  return (doc.paths['/v1/creators/search']?.['get']?.parameters ?? []).filter((p) => p.in === 'query');
}

/**
 * The filter form, built from the OpenAPI parameters of GET /v1/creators/search so
 * that every filter the API has is offered (a new one appears without console
 * changes); the values of comma-list filters and the sort keys come from /v1/meta.
 */
export function searchForm(
  api: Api,
  params: OpenApiParameter[],
  meta: Meta,
  current: URLSearchParams,
  onSearch: (q: URLSearchParams) => void,
): HTMLFormElement {
  const filters = params.filter((p) => !NOT_FILTERS.has(p.name));
  const set = filters.filter((p) => current.has(p.name)).length;
  // on a phone the filters fold away so the results are one scroll away; wider screens show them open
  const open = window.matchMedia('(min-width: 700px)').matches;
  const groups = GROUPS.map((title) => [title, filters.filter((p) => groupOf(p.name) === title)] as const).filter(
    ([, members]) => members.length > 0,
  );
  const form = h(
    'form',
    { class: 'card search-form', role: 'search', 'aria-label': 'Creator filters' },
    h(
      'details',
      { open },
      h('summary', null, set > 0 ? `Filters (${set} set)` : 'Filters'),
      groups.map(([title, members]) =>
        h(
          'fieldset',
          { class: 'filter-group' },
          h('legend', null, title),
          h(
            'div',
            { class: 'grid' },
            members.map((p) => control(api, p, meta, current)),
          ),
        ),
      ),
    ),
    h(
      'div',
      { class: 'row' },
      sortControl(meta, current),
      limitControl(current),
      h('button', { type: 'submit', class: 'primary' }, 'Search'),
      h('button', { type: 'reset' }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onSearch(formQuery(form, filters));
  });
  form.addEventListener('reset', () => setTimeout(() => onSearch(new URLSearchParams()), 0));
  return form;
}

/** The form's non-empty values as search parameters; a comma list joins the ticked values. */
function formQuery(form: HTMLFormElement, filters: OpenApiParameter[]): URLSearchParams {
  const q = new URLSearchParams();
  const data = new FormData(form);
  for (const p of filters) {
    const values = data
      .getAll(p.name)
      .map(String)
      .map((v) => v.trim())
      .filter((v) => v !== '');
    if (values.length > 0) q.set(p.name, values.join(','));
  }
  for (const name of ['sort', 'limit']) {
    const v = String(data.get(name) ?? '');
    if (v) q.set(name, v);
  }
  return q;
}

/** The form's sections, each a legend over its filters (every filter lands in one). */
const GROUPS = ['Creator', 'Content', 'Audience', 'Lists'] as const;
const CONTENT: ReadonlySet<string> = new Set(CONTENT_FILTERS);

function groupOf(name: string): string {
  if (name === 'exclude_list') return 'Lists';
  if (name.startsWith('audience_')) return 'Audience';
  return CONTENT.has(name) ? 'Content' : 'Creator';
}

/** Filters whose values are one of /v1/meta's lists, though their names do not say which. */
const META_CHOICES: Readonly<Record<string, keyof Meta>> = {
  audience_gender: 'genders',
  audience_age: 'age_ranges',
  also_on: 'platforms',
};

function control(api: Api, p: OpenApiParameter, meta: Meta, current: URLSearchParams): HTMLElement {
  const label = labelOf(p.name);
  const value = current.get(p.name) ?? '';
  const s = p.schema ?? {};
  const id = `f-${p.name}`;
  const help = s.description ?? p.description;
  const single = META_CHOICES[p.name] && !/comma list/i.test(help ?? '');
  const choices = csvChoices(p, meta);
  if (choices && !single) return checkboxGroup(p.name, label, choices, new Set(value.split(',').filter(Boolean)));
  let input: HTMLElement;
  if (choices) {
    input = h(
      'select',
      { id, name: p.name },
      h('option', { value: '' }, 'Any'),
      choices.map((c) => h('option', { value: c, selected: c === value }, c)),
    );
  } else if (SUGGESTED[p.name]) {
    input = suggestInput(api, SUGGESTED[p.name]!, id, p.name, value);
  } else if (p.name === 'exclude_list') {
    input = listSelect(api, id, p.name, value);
  } else if (s.enum && s.enum.length === 2 && s.enum.includes('true')) {
    input = h(
      'select',
      { id, name: p.name },
      h('option', { value: '' }, 'Any'),
      h('option', { value: 'true', selected: value === 'true' }, 'Yes'),
      h('option', { value: 'false', selected: value === 'false' }, 'No'),
    );
  } else if (s.type === 'integer' || s.type === 'number') {
    input = h('input', {
      id,
      name: p.name,
      type: 'number',
      inputmode: 'decimal',
      value,
      min: s.minimum,
      max: s.maximum,
      step: s.type === 'integer' ? 1 : 'any',
    });
  } else {
    input = h('input', { id, name: p.name, type: 'text', value, autocomplete: 'off' });
  }
  return h('div', { class: 'field' }, h('label', { for: id, title: help ?? null }, label), input);
}

function checkboxGroup(name: string, label: string, values: string[], ticked: Set<string>): HTMLElement {
  return h(
    'fieldset',
    { class: 'choices' },
    h('legend', null, label),
    values.map((v) =>
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name, value: v, checked: ticked.has(v) }), ` ${v}`),
    ),
  );
}

/** Values of a comma-list filter: /v1/meta's list of the same name when there is one, else the document's description. */
function csvChoices(p: OpenApiParameter, meta: Meta): string[] | null {
  const fromMeta = (meta as unknown as Record<string, unknown>)[META_CHOICES[p.name] ?? `${p.name}s`];
  if (Array.isArray(fromMeta) && fromMeta.every((v) => typeof v === 'string')) return fromMeta;
  const m = CSV_ENUM.exec(p.schema?.description ?? p.description ?? '');
  return m?.[1] ? m[1].split(',').map((v) => v.trim()) : null;
}

function sortControl(meta: Meta, current: URLSearchParams): Child {
  const value = current.get('sort') ?? '-followers';
  const options = meta.sort_keys.flatMap((k) => [
    [`-${k}`, `${labelOf(k)}, highest first`],
    [k, `${labelOf(k)}, lowest first`],
  ]);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: 'f-sort' }, 'Sort by'),
    h(
      'select',
      { id: 'f-sort', name: 'sort' },
      options.map(([v, t]) => h('option', { value: v!, selected: v === value }, t!)),
    ),
  );
}

function limitControl(current: URLSearchParams): Child {
  const value = current.get('limit') ?? '20';
  return h(
    'div',
    { class: 'field' },
    h('label', { for: 'f-limit' }, 'Per page'),
    h(
      'select',
      { id: 'f-limit', name: 'limit' },
      ['10', '20', '50', '100'].map((v) => h('option', { value: v, selected: v === value }, v)),
    ),
  );
}

/** Names whose words alone would not say what they do. */
const LABELS: Readonly<Record<string, string>> = {
  q: 'Words (handle, name, bio)',
  growth_30d_min: 'Growth 30 days min %',
  engagement_min: 'Engagement min %',
  engagement_max: 'Engagement max %',
  authenticity_min: 'Authenticity score min',
  price_max: 'Price per post max (USD)',
  price: 'Price per post',
  hashtags: 'Hashtags (comma list)',
  mentions: 'Mentions (comma list)',
  brands: 'Brands worked with (comma list)',
  has_sponsored_posts: 'Has sponsored posts',
  keywords: 'Caption words (all of them)',
  last_posted_days_max: 'Posted within (days)',
  avg_views_min: 'Avg views min',
  reels_views_min: 'Reels & shorts avg views min',
  audience_age: 'Audience age',
  audience_age_min_pct: 'Audience in those ages min %',
  audience_real_min_pct: 'Real audience min %',
  exclude_list: 'Not in list',
  has_contact: 'Contact on record',
  also_on: 'Also on',
};

/** `audience_country_min_pct` → "Audience country min %". */
export function labelOf(name: string): string {
  const known = LABELS[name];
  if (known) return known;
  const words = name.replace(/_pct$/, ' %').replace(/_30d/, ' 30 d').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
