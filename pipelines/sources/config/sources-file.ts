import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ENTITIES } from '../../entities/source-entities.js';
import { formatOf } from '../../engine/stage.js';
import { SourcesFile, type SourceConfig } from './sources-schema.js';

/** A sources file that is missing, readable by others, not JSON/YAML, or fails validation; the message names the file and the field. */
export class SourceConfigError extends Error {
  override name = 'SourceConfigError';
}

/** Hosts `allow_insecure_localhost` lets a source reach over plain http. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Reads the sources file (`CDS_SOURCES`, JSON or YAML by its extension): each
 * source by name, validated. Auth secrets are only ever environment variable
 * names. A file others may read (a git checkout makes files 0644) loads unless a
 * header or query value whose name says it is a credential is written in clear
 * there; such a file must be private (0600) or, better, name the variable. No
 * file configured means no sources. `reserved` are the built-in pipeline names a
 * source may not take.
 */
export function loadSources(path: string | null, reserved: readonly string[] = []): Map<string, SourceConfig> {
  if (path === null) return new Map();
  const { json, mode } = readSourcesFile(path);
  const parsed = SourcesFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SourceConfigError(
      `the sources file ${path}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const sources = new Map(Object.entries(parsed.data.sources));
  const clear = (mode & 0o077) !== 0 ? secretInClear(sources) : null;
  if (clear) {
    throw new SourceConfigError(
      `the sources file ${path} is readable by others (mode ${mode.toString(8).padStart(4, '0')}) and ${clear} ` +
        `looks like a credential written in clear: write it as {"env": "VARIABLE"} with the value in that environment variable, ` +
        `or make the file private to its owner: chmod 600 ${path}`,
    );
  }
  for (const [name, source] of sources) {
    const problem =
      (reserved.includes(name) ? `the name ${name} is taken by a built-in pipeline; choose another` : null) ??
      checkSource(source);
    if (problem) throw new SourceConfigError(`the sources file ${path}: sources.${name}: ${problem}`);
  }
  return sources;
}

function readSourcesFile(path: string): { json: unknown; mode: number } {
  if (!existsSync(path)) throw new SourceConfigError(`the sources file ${path} does not exist`);
  const mode = statSync(path).mode & 0o777;
  const text = readFileSync(path, 'utf8');
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  try {
    return { json: yaml ? parseYaml(text) : JSON.parse(text), mode };
  } catch (error) {
    throw new SourceConfigError(
      `the sources file ${path} is not valid ${yaml ? 'YAML' : 'JSON'}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

/** Header and query names that carry credentials. */
const CREDENTIAL_NAME = /authorization|token|secret|passw|api[-_]?key|^key$|signature|cookie|session/i;

/** The first header or query value named like a credential and written as text (`sources.x.headers.Authorization`), or null. */
function secretInClear(sources: ReadonlyMap<string, SourceConfig>): string | null {
  for (const [name, source] of sources) {
    const groups: Array<[string, Record<string, unknown>]> = [['headers', source.headers]];
    if (source.kind === 'http_json') groups.push(['params', source.params]);
    for (const [group, values] of groups) {
      const found = Object.entries(values).find(
        ([key, value]) => CREDENTIAL_NAME.test(key) && typeof value !== 'object',
      );
      if (found) return `sources.${name}.${group}.${found[0]}`;
    }
  }
  return null;
}

/** Checks across fields that the schema cannot express; answers what is wrong, or null. */
function checkSource(source: SourceConfig): string | null {
  const urls = source.kind === 'http_json' ? [source.base_url] : source.urls;
  for (const url of urls) {
    const problem = checkUrl(url, source.allow_insecure_localhost);
    if (problem) return problem;
  }
  if (source.kind === 'remote_file') {
    const unknown = source.format ? undefined : source.urls.find((u) => !formatOf(new URL(u).pathname));
    return unknown
      ? `cannot tell the format of ${unknown} from its name; set format (csv, ndjson, json or parquet)`
      : null;
  }
  if (
    source.paginator.type === 'page_number' &&
    Boolean(source.paginator.size_param) !== Boolean(source.paginator.size)
  ) {
    return 'paginator.size_param and paginator.size go together';
  }
  return source.fields ? checkFields(source.entity, Object.keys(source.fields)) : null;
}

/**
 * `https://` only; plain http only to this machine, and only when the source says so.
 * The sources apply it to every URL they request (redirect hops and next pages too).
 */
export function checkUrl(url: string, allowInsecureLocalhost: boolean): string | null {
  const u = new URL(url);
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && allowInsecureLocalhost && LOOPBACK_HOSTS.has(u.hostname)) return null;
  if (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname))
    return `${u.origin} is plain http: set allow_insecure_localhost: true to allow it (local testing only)`;
  return `${u.origin}: only https:// URLs are allowed (plain http only to this machine, with allow_insecure_localhost)`;
}

/** Mapped columns must be the entity's, and every required column must be mapped. */
function checkFields(entity: SourceConfig['entity'], mapped: readonly string[]): string | null {
  const spec = ENTITIES[entity];
  const unknown = mapped.filter((c) => !spec.columns.some((col) => col.name === c));
  if (unknown.length > 0)
    return `fields: ${entity} has no column(s) ${unknown.join(', ')} (it has ${spec.columns.map((c) => c.name).join(', ')})`;
  const missing = spec.columns.filter((c) => c.required && !mapped.includes(c.name)).map((c) => c.name);
  return missing.length > 0 ? `fields: map the required ${entity} column(s) ${missing.join(', ')}` : null;
}
