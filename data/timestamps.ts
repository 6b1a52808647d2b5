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
  return z.string().meta({ format: 'date-time', pattern: TIMESTAMP_PATTERN.source, examples: [TIMESTAMP_EXAMPLE] })
    .describe(`${description} (RFC 3339, UTC, milliseconds)`);
}
