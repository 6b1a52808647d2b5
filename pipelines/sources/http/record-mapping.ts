import type { EntityName } from '../../entities/entity.js';
import { ENTITIES } from '../../entities/source-entities.js';
import type { Conversion, FieldMapping } from '../config/sources-schema.js';
import { TerminalSourceError } from './http-request.js';

/** A record that does not fit the source's mapping: the run fails naming the page, the record and the field. */
export class MappingError extends TerminalSourceError {
  override name = 'MappingError';
}

/** A cell of a mapped row, as written to the staging file. */
export type Cell = string | number | boolean | null;

/** Where a record sits, for messages: `page 2, record 3`. */
export interface RecordPlace {
  page: number;
  index: number;
}

/** A source's mapping, compiled once: the columns it fills and how each record becomes a row of them. */
export interface RecordMapper {
  columns: readonly string[];
  map(record: unknown, at: RecordPlace): Cell[];
}

/** Reads a dot path (`statistics.subscriberCount`, `items.0.id`); `undefined` when a step is absent or null. */
export function readPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const step of path.split('.')) {
    if (current === null || current === undefined) return undefined;
    if (typeof current !== 'object') throw new Error(`cannot read ${step} of ${describe(current)}`);
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/**
 * Compiles `fields` (entity column → path, constant, pulled_at) for `entity`. No
 * `fields` takes the record's keys that are named like the entity's columns, as a
 * file would be read. `pulledAt` is the time the pull started (ISO).
 */
export function compileMapping(
  entity: EntityName,
  fields: Readonly<Record<string, FieldMapping>> | undefined,
  pulledAt: string,
): RecordMapper {
  const entries: Array<[string, FieldMapping]> = fields
    ? Object.entries(fields)
    : ENTITIES[entity].columns.map((c) => [c.name, c.name]);
  const readers = entries.map(([column, mapping]) => fieldReader(column, mapping, pulledAt));
  return {
    columns: entries.map(([column]) => column),
    map(record, at) {
      if (record === null || typeof record !== 'object' || Array.isArray(record)) {
        throw new MappingError(`page ${at.page}, record ${at.index}: not an object but ${describe(record)}`);
      }
      return readers.map((read) => read(record, at));
    },
  };
}

type Reader = (record: object, at: RecordPlace) => Cell;

function fieldReader(column: string, mapping: FieldMapping, pulledAt: string): Reader {
  if (typeof mapping === 'string') return fieldReader(column, { path: mapping }, pulledAt);
  if ('const' in mapping) return () => mapping.const;
  if ('pulled_at' in mapping) return () => pulledAt;
  const { path, convert, scale, required } = mapping;
  return (record, at) => {
    const fail = (reason: string): never => {
      throw new MappingError(`page ${at.page}, record ${at.index}: field ${column} (${path}): ${reason}`);
    };
    let raw: unknown;
    try {
      raw = readPath(record, path);
    } catch (error) {
      return fail((error as Error).message);
    }
    if (raw === undefined || raw === null) return required === true ? fail('missing') : null;
    const converted = convert ? applyConversion(raw, convert, fail) : scalar(raw, fail);
    return scale === undefined ? converted : toNumber(converted, fail) * scale;
  };
}

function scalar(raw: unknown, fail: (reason: string) => never): Cell {
  if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') return raw;
  return fail(`expected a single value, got ${describe(raw)}`);
}

function applyConversion(raw: unknown, convert: Conversion, fail: (reason: string) => never): Cell {
  switch (convert) {
    case 'number':
      return toNumber(raw, fail);
    case 'integer': {
      const n = toNumber(raw, fail);
      return Number.isInteger(n) ? n : fail(`expected a whole number, got ${describe(raw)}`);
    }
    case 'string':
      return String(scalar(raw, fail));
    case 'boolean':
      return toBoolean(raw, fail);
    // rounded so that 0.034 reads 3.4, not 3.4000000000000004
    case 'ratio_to_percent':
      return Math.round(toNumber(raw, fail) * 100 * 1e9) / 1e9;
    case 'unix_seconds_to_time':
      return toTime(toNumber(raw, fail) * 1000, raw, fail);
    case 'unix_millis_to_time':
      return toTime(toNumber(raw, fail), raw, fail);
  }
}

/** APIs send counts as numbers or as numeric strings (the YouTube Data API sends strings). */
function toNumber(raw: unknown, fail: (reason: string) => never): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  return Number.isFinite(n) ? n : fail(`expected a number, got ${describe(raw)}`);
}

function toBoolean(raw: unknown, fail: (reason: string) => never): boolean {
  if (typeof raw === 'boolean') return raw;
  if (raw === 1 || raw === 'true' || raw === '1') return true;
  if (raw === 0 || raw === 'false' || raw === '0') return false;
  return fail(`expected true or false, got ${describe(raw)}`);
}

function toTime(ms: number, raw: unknown, fail: (reason: string) => never): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? fail(`not a time: ${describe(raw)}`) : d.toISOString();
}

/** A value as a message shows it: its kind, and a short excerpt of a scalar. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
