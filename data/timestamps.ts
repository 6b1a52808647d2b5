import { z } from 'zod';

/**
 * The API's one timestamp format: RFC 3339, UTC, `Z`, always with milliseconds
 * (`2026-05-01T12:00:00.000Z`), the text `Date.prototype.toISOString` writes.
 * SQL produces it with `timestampSql`, JavaScript with `timestampText`, the
 * OpenAPI document declares it with `TimestampSchema`; nothing else formats an
 * API time. Documented in CHANGELOG.md (every API time carries milliseconds).
 */

/** The `strftime` format of an API time; PostgreSQL's compatibility `strftime` (pg-migrations v1) knows it too. */
export const TIMESTAMP_FORMAT = '%Y-%m-%dT%H:%M:%S.%gZ';

/** What an API time looks like, for the OpenAPI document and tests. */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An example API time, shown in the OpenAPI document. */
export const TIMESTAMP_EXAMPLE = '2026-05-01T12:00:00.000Z';

/** SQL turning a TIMESTAMP expression (naive UTC, as the store and the state keep it) into an API time; NULL stays NULL. */
export function timestampSql(expression: string): string {
  return `strftime(${expression}, '${TIMESTAMP_FORMAT}')`;
}

/** A time in JavaScript as an API time. */
export function timestampText(value: Date | number): string {
  return new Date(value).toISOString();
}

/** Like `timestampText`, for a time that may be absent (null stays null). */
export function optionalTimestamp(value: Date | number | null | undefined): string | null {
  return value === null || value === undefined ? null : timestampText(value);
}

/** An API time in a response schema: `format: date-time` with the pattern, so the response checks hold every time to it. */
export function timestampSchema(description: string) {
  return z
    .string()
    .meta({ format: 'date-time', pattern: TIMESTAMP_PATTERN.source, examples: [TIMESTAMP_EXAMPLE] })
    .describe(`${description} (RFC 3339, UTC, milliseconds)`);
}

const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_TEXT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The UTC midnight (ms) of a real calendar date `YYYY-MM-DD`; null for anything else (2026-02-30 is not shifted to March). */
export function parseDateText(text: string): number | null {
  const m = DATE_TEXT.exec(text);
  if (!m) return null;
  return calendarMs(Number(m[1]), Number(m[2]), Number(m[3]));
}

/**
 * The instant (ms) of an RFC 3339 time whose every field is in range (a real day of
 * its month, hour ≤ 23, minute and second ≤ 59, offset ≤ ±23:59); null otherwise.
 * The one parser for times the API and CLI take; `Date.parse` rolls 02-30 over to March.
 */
export function parseTimeText(text: string): number | null {
  const m = TIME_TEXT.exec(text);
  if (!m) return null;
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  const day = calendarMs(Number(m[1]), Number(m[2]), Number(m[3]));
  if (day === null || hour > 23 || minute > 59 || second > 59) return null;
  const zone = m[8]!.toUpperCase();
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const [h, mm] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
    if (h > 23 || mm > 59) return null;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (h * 60 + mm);
  }
  const fraction = m[7] ? Math.floor(Number(m[7]) * 1000) : 0;
  return day + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + fraction;
}

function calendarMs(year: number, month: number, day: number): number | null {
  if (month < 1 || month > 12 || day < 1) return null;
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  return back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day ? ms : null;
}
