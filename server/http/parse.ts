import type { Context } from 'koa';
import type { z } from 'zod';
import { ValidationError, type FieldError } from '../../data/errors.js';

/**
 * Validates the query string against `schema` (an object of string-input fields);
 * every unknown, repeated or invalid parameter is reported at once as a 400
 * `invalid_parameter` naming each one.
 */
export function parseQuery<S extends z.ZodObject>(ctx: Context, schema: S): z.output<S> {
  const errors: FieldError[] = [];
  const input: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.query)) {
    if (Array.isArray(value)) errors.push({ param: name, message: 'given more than once; use a comma list' });
    else if (value !== undefined) input[name] = value;
  }
  return validate(strictOf(schema), input, errors, 'query');
}

/**
 * The strict variant of each schema, made once: zod compiles a schema's parser on its first
 * use, so a variant made per request was compiled per request (a quarter of a search's CPU).
 */
const STRICT = new WeakMap<z.ZodObject, z.ZodObject>();

function strictOf(schema: z.ZodObject): z.ZodObject {
  let strict = STRICT.get(schema);
  if (!strict) STRICT.set(schema, (strict = schema.strict()));
  return strict;
}

/** Validates path parameters (already URL-decoded by the router). */
export function parseParams<S extends z.ZodObject>(ctx: Context, schema: S): z.output<S> {
  return validate(schema, { ...(ctx['params'] as Record<string, string> | undefined) }, [], 'query');
}

/**
 * Validates the JSON body; unknown top-level fields are rejected (nested objects
 * should be `z.strictObject` to get the same). 400 `invalid_body` names each field.
 */
export function parseBody<S extends z.ZodType>(ctx: Context, schema: S): z.output<S> {
  const body = (ctx.request as { body?: unknown }).body;
  const strict = isZodObject(schema) ? strictOf(schema) : schema;
  return validate(strict, body ?? {}, [], 'body');
}

function isZodObject(schema: z.ZodType): schema is z.ZodType & z.ZodObject {
  return (schema as { def?: { type?: string } }).def?.type === 'object';
}

function validate<S extends z.ZodType>(
  schema: z.ZodType,
  input: unknown,
  errors: FieldError[],
  where: 'query' | 'body',
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) errors.push(...issuesToErrors(result.error.issues, where, input));
  if (errors.length > 0 || !result.success) {
    const names = [...new Set(errors.map((e) => e.param ?? e.field ?? ''))].filter(Boolean);
    const detail =
      errors.length === 1
        ? `${names[0] ? `${names[0]}: ` : ''}${errors[0]?.message ?? ''}`
        : `invalid ${where === 'body' ? 'fields' : 'parameters'}: ${names.join(', ')}`;
    throw new ValidationError(detail, errors, where);
  }
  return result.data as z.output<S>;
}

/** Zod issues as API field errors; unknown keys become one error per key. */
export function issuesToErrors(
  issues: readonly z.core.$ZodIssue[],
  where: 'query' | 'body',
  input?: unknown,
): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...issue.path.map(String), key].join('.');
        out.push(named(path, where === 'body' ? 'unknown field' : 'unknown parameter', where));
      }
      continue;
    }
    const path = issue.path
      .filter((p) => typeof p !== 'number' || where === 'body')
      .map(String)
      .join('.');
    out.push(named(path || (where === 'body' ? 'body' : 'query'), friendly(issue, input), where));
  }
  return out;
}

function named(name: string, message: string, where: 'query' | 'body'): FieldError {
  return where === 'body' ? { field: name, message } : { param: name, message };
}

/** Zod's message, except "required" for a missing value and "must be a number" style for a wrong type. */
function friendly(issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code !== 'invalid_type') return issue.message;
  let value: unknown = input;
  for (const key of issue.path)
    value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  if (value === undefined) return 'required';
  return `must be ${issue.expected === 'int' ? 'a whole number' : `a ${issue.expected}`}`;
}
