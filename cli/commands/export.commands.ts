import { resolve } from 'node:path';
import { PLAN_LIMITS } from '../../data/plans/plans.js';
// the connector's config, not its index: the index brings the export engine (DuckDB, Arrow) into every `cds` process
import { EXPORT_FORMATS, EXPORT_SOURCES } from '../../connectors/exports/export.config.js';
import { DEMO_ACCOUNT_NAME } from '../../data/seed/demo-account.js';
import type { ExportOpResult } from '../../server/admin/ops/export.ops.js';
import { commaList, commaListOption, oneOf, str, UsageError, type CliCommand, type ParsedArgs } from '../command.js';
import { jsonOption, printer } from '../output.js';

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
  const common = {
    format: oneOf('format', str(a, 'format') ?? 'csv', EXPORT_FORMATS),
    fields: commaList(str(a, 'fields')),
  };
  switch (source) {
    case 'search':
      return { source, filters: filters(a), ...common };
    case 'list':
      return { source, list_id: required(a, 'list', source), ...common };
    case 'creators':
      return { source, handles: commaList(required(a, 'handles', source)), ...common };
    case 'campaign':
      return { source, campaign_id: required(a, 'campaign', source), ...common };
    case 'lookalikes':
      return {
        source,
        handle: required(a, 'handle', source),
        platform: str(a, 'platform'),
        basis: str(a, 'basis'),
        limit: str(a, 'limit') === undefined ? undefined : Number(str(a, 'limit')),
        filters: filters(a),
        ...common,
      };
  }
}

export const exportCommand: CliCommand = {
  name: 'export',
  maxPositionals: 0,
  usage:
    'cds export --source search|list|creators|campaign|lookalikes [--filter name=value …] [--list lst_…] [--handles @a,@b] ' +
    '[--campaign cmp_…] [--handle @a [--platform P] [--basis B] [--limit N]] [--format json|ndjson|csv|parquet|arrow] [--fields a,b,…] [--out FILE] [--account A] [--no-limit] [--json]',
  summary: "export creators (a search, a list, handles) or a campaign's daily metrics to a file",
  options: {
    source: {
      type: 'string',
      help: 'what to export: search (--filter), list (--list), creators (--handles), campaign (--campaign, its daily metrics)',
    },
    filter: {
      type: 'string',
      multiple: true,
      help: 'a search parameter as name=value, as GET /v1/creators/search takes it',
    },
    list: { type: 'string', help: 'the list id, for --source list' },
    handles: commaListOption('handles, for --source creators'),
    campaign: { type: 'string', help: 'the campaign id, for --source campaign' },
    handle: { type: 'string', help: 'the creator the matches are like, for --source lookalikes' },
    platform: {
      type: 'string',
      help: "the creator's platform, for --source lookalikes (when the handle is on several)",
    },
    basis: { type: 'string', help: 'content, audience or both (default), for --source lookalikes' },
    limit: {
      type: 'string',
      help: 'how many of the most similar matches (default 1000, at most 10000), for --source lookalikes',
    },
    format: { type: 'string', help: `${EXPORT_FORMATS.join(', ')} (default csv)` },
    fields: commaListOption('the fields to write (default: all)'),
    out: {
      type: 'string',
      help: 'copy the finished file here; without it the file stays in the exports folder, whose path is printed',
    },
    account: {
      type: 'string',
      help:
        `run as this account, name or id (default: the demo account, "${DEMO_ACCOUNT_NAME}"): its plan's ` +
        'row cap applies, the export is listed under it and only its API keys can download the file',
    },
    'no-limit': {
      type: 'boolean',
      help:
        `apply the enterprise plan's cap (${PLAN_LIMITS.enterprise.exportRows.toLocaleString('en-US')} rows) ` +
        "instead of the account's plan: an operator's export",
    },
    ...jsonOption('the finished export job, its account and file'),
  },
  op: 'export',
  toArgs: (a) => ({
    account: str(a, 'account'),
    request: request(a),
    no_limit: a.values['no-limit'] === true,
    // the server may run in another folder: the target is resolved here, where the user typed it
    out: str(a, 'out') ? resolve(str(a, 'out') as string) : undefined,
  }),
  print: printer<ExportOpResult>({ text: (r, a) => describeExport(r, a.values['no-limit'] === true) }),
};

/**
 * What `cds export` says: what was written, as which account, where the file is
 * on this machine, and — without `--out` — how to download it over the API,
 * which only that account's keys can do.
 */
export function describeExport(r: ExportOpResult, noLimit: boolean): string {
  const cap = noLimit ? 'the enterprise cap (--no-limit)' : `the ${r.account.plan} plan's cap`;
  const lines = [
    `exported ${(r.job.row_count ?? 0).toLocaleString('en-US')} rows as ${r.job.format} ` +
      `(${((r.job.bytes ?? 0) / 1_048_576).toFixed(1)} MB, sha256 ${r.job.sha256}), export ${r.job.id}`,
    `account:  ${r.account.name} (${r.account.id}), ${cap}`,
  ];
  if (r.out) return [...lines, `file:     ${r.out}`].join('\n');
  return [
    ...lines,
    `file:     ${r.file}${r.job.expires_at ? ` (deleted after ${r.job.expires_at})` : ''}`,
    `download: ${r.job.download_url ?? `/v1/exports/${r.job.id}/download`} with an API key of account ${r.account.name}, ` +
      'or run again with --out FILE to copy it',
  ].join('\n');
}
