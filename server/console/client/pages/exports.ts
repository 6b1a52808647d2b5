import { allPages, ApiError } from '../api.js';
import { actionButton, h, replace, table, valueOf } from '../dom.js';
import { bytes, int, when } from '../format.js';
import { guarded, heading, message, sleep, type View } from '../view.js';
import { EXPORT_FORMATS, type ListItem } from './creators.js';

interface ExportJob {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'expired';
  progress: number;
  source: string;
  filters?: Record<string, string>;
  list_id?: string;
  format: string;
  row_count: number | null;
  bytes: number | null;
  created_at: string;
  finished_at: string | null;
  expires_at: string | null;
  error: string | null;
  download_url: string | null;
}

/** #/exports: your exports with progress while they run, a form to start one from a list or a search, downloads. */
export async function exportsPage(view: View): Promise<void> {
  const jobs = h('section', { 'aria-labelledby': 'jobs-title', 'aria-live': 'polite' });
  const slot = h('div', { class: 'slot' });
  replace(view.root, heading('Exports'), view.can('exports:write') ? await createForm(view) : null, slot, jobs);
  let running = await drawJobs(view, jobs, slot);
  // progress while running: polled once a second until every job has finished or the page is left
  void (async () => {
    while (running && !view.signal.aborted) {
      await sleep(1000, view.signal);
      if (!view.signal.aborted) running = await drawJobs(view, jobs, slot).catch(() => true);
    }
  })();
}

async function drawJobs(view: View, jobs: HTMLElement, slot: HTMLElement): Promise<boolean> {
  const page = await view.api.get<{ data: ExportJob[] }>('/v1/exports', { limit: 50 });
  if (view.signal.aborted) return false;
  replace(
    jobs,
    h('h2', { id: 'jobs-title' }, 'Your exports'),
    table(
      ['Created', 'Source', 'Format', 'Status', 'Rows', 'Size', 'Expires', ''],
      page.data.map((j) => [
        when(j.created_at),
        sourceText(j),
        j.format.toUpperCase(),
        statusCell(j),
        int(j.row_count),
        bytes(j.bytes),
        when(j.expires_at),
        j.status === 'succeeded' && j.download_url
          ? actionButton('Download', () => guarded(slot, () => download(view, j)), {
              'aria-label': `Download export ${j.id}`,
            })
          : null,
      ]),
      'No export yet.',
    ),
  );
  return page.data.some((j) => j.status === 'queued' || j.status === 'running');
}

function statusCell(j: ExportJob): HTMLElement {
  if (j.status === 'queued' || j.status === 'running') {
    return h(
      'span',
      { class: 'progress' },
      h('progress', { max: 100, value: j.progress, 'aria-label': `Export ${j.id} progress` }),
      ` ${j.status} ${j.progress}%`,
    );
  }
  return h(
    'span',
    { class: `status status-${j.status}`, title: j.error ?? null },
    j.status,
    j.error ? `: ${j.error}` : '',
  );
}

function sourceText(j: ExportJob): string {
  if (j.source === 'search') {
    const filters = Object.entries(j.filters ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    return `search ${filters || '(everything)'}`;
  }
  return j.source === 'list' ? `list ${j.list_id ?? ''}` : j.source;
}

/**
 * The download needs the key in a header, so it cannot be a plain link: the file is
 * fetched, turned into a blob: URL (allowed by the CSP) and saved through a
 * temporary `<a download>`.
 */
async function download(view: View, j: ExportJob): Promise<void> {
  const blob = await view.api.blob(j.download_url!);
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: `${j.id}.${j.format === 'arrow' ? 'arrows' : j.format}`, class: 'hidden' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function createForm(view: View): Promise<HTMLElement> {
  const lists = await allPages<ListItem>(view.api, '/v1/lists');
  const slot = h('div', { class: 'slot' });
  const form = h(
    'form',
    { class: 'card', 'aria-label': 'New export' },
    h('h2', null, 'New export'),
    h(
      'div',
      { class: 'row' },
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'exp-list' }, 'From a list'),
        h(
          'select',
          { id: 'exp-list', name: 'list_id' },
          h('option', { value: '' }, lists.length ? 'Choose a list' : 'No list yet'),
          lists.map((l) => h('option', { value: l.id }, `${l.name} (${int(l.creators_count)})`)),
        ),
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'exp-format' }, 'Format'),
        h(
          'select',
          { id: 'exp-format', name: 'format' },
          EXPORT_FORMATS.map((f) => h('option', { value: f }, f.toUpperCase())),
        ),
      ),
      h('button', { type: 'submit', class: 'primary' }, 'Export list'),
    ),
    h(
      'p',
      { class: 'sub' },
      'To export a search, set its filters on ',
      h('a', { href: '#/creators' }, 'Creators'),
      ' and choose “Export this search”.',
    ),
    slot,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void guarded(slot, async () => {
      const listId = valueOf(form, 'list_id');
      if (!listId) throw new ApiError(400, 'invalid_body', 'Choose a list to export.');
      await view.api.send('POST', '/v1/exports', { source: 'list', list_id: listId, format: valueOf(form, 'format') });
      replace(slot, message('ok', 'Export queued.'));
      view.reload();
    });
  });
  return form;
}
