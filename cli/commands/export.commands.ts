import { resolve } from 'node:path';
import { EXPORT_FORMATS, EXPORT_SOURCES } from '../../connectors/exports/index.js';
import type { ExportOpResult } from '../../server/admin/ops/export.ops.js';
import { str, UsageError, type CliCommand, type ParsedArgs } from '../command.js';

const list = (v: string | undefined): string[] | undefined => v?.split(',').map((x) => x.trim()).filter((x) => x.length > 0);

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T {
  if (value === undefined || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}${value === undefined ? '' : `, not ${value}`}`);
  }
  return value as T;
}

/** `--filter niche=beauty --filter followers_min=10000` → the search parameters. */
function filters(a: ParsedArgs): Record<string, string> {
  const raw = a.values['filter'];
  const pairs = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--filter takes name=value, not ${pair}`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

function required(a: ParsedArgs, name: string, source: string): string {
  const v = str(a, name);
  if (!v) throw new UsageError(`--source ${source} needs --${name}`);
  return v;
}

function request(a: ParsedArgs): Record<string, unknown> {
  const source = oneOf('source', str(a, 'source'), EXPORT_SOURCES);
  const common = { format: oneOf('format', str(a, 'format') ?? 'csv', EXPORT_FORMATS), fields: list(str(a, 'fields')) };
  switch (source) {
    case 'search': return { source, filters: filters(a), ...common };
    case 'list': return { source, list_id: required(a, 'list', source), ...common };
    case 'creators': return { source, handles: list(required(a, 'handles', source)), ...common };
    case 'campaign': return { source, campaign_id: required(a, 'campaign', source), ...common };
  }
}

export const exportCommand: CliCommand = {
  name: 'export',
  usage: 'cds export --source search|list|creators|campaign [--filter name=value …] [--list lst_…] [--handles @a,@b] '
    + '[--campaign cmp_…] [--format json|ndjson|csv|parquet|arrow] [--fields a,b,…] [--out FILE] [--account A] [--no-limit] [--json]',
  summary: 'export creators (a search, a list, handles) or a campaign\'s daily metrics to a file',
  options: {
    source: { type: 'string' }, filter: { type: 'string', multiple: true }, list: { type: 'string' }, handles: { type: 'string' },
    campaign: { type: 'string' }, format: { type: 'string' }, fields: { type: 'string' }, out: { type: 'string' },
    account: { type: 'string' }, 'no-limit': { type: 'boolean' }, json: { type: 'boolean' },
  },
  op: 'export',
  toArgs: (a) => ({
    account: str(a, 'account'), request: request(a), no_limit: a.values['no-limit'] === true,
    // the server may run in another folder: the target is resolved here, where the user typed it
    out: str(a, 'out') ? resolve(str(a, 'out') as string) : undefined,
  }),
  print: (result, a) => {
    const r = result as ExportOpResult;
    if (a.values['json']) return JSON.stringify(r);
    const where = r.out ?? `${r.job.download_url} (id ${r.job.id})`;
    return `exported ${(r.job.row_count ?? 0).toLocaleString('en-US')} rows as ${r.job.format} ` +
      `(${((r.job.bytes ?? 0) / 1_048_576).toFixed(1)} MB, sha256 ${r.job.sha256}) to ${where}`;
  },
};
