import type { z } from 'zod';
import type { Scope } from '../../data/plans/plans.js';
import type { ErrorCode } from '../../data/errors.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One documented response of an operation. */
export interface ResponseSpec {
  description: string;
  /** Body schema (JSON unless `contentType` says otherwise); omit for no body. */
  schema?: z.ZodType;
  /** The media type, or every one the response can carry (parameters such as `charset` are left out). */
  contentType?: string | readonly string[];
  /** Extra response headers (rate-limit and request-id headers are added to every response). */
  headers?: Record<string, { description: string; schema?: Record<string, unknown> }>;
}

/**
 * An operation as routes declare it: the same zod schemas validate the request
 * (through `defineRoute`) and generate `/v1/openapi.json`.
 */
export interface OperationSpec {
  method: HttpMethod;
  /** OpenAPI-style path: `/v1/lists/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The key scope the operation needs; omit for any valid key. */
  scope?: Scope;
  /** No API key needed (health, docs, the OpenAPI document itself). */
  public?: boolean;
  query?: z.ZodObject;
  params?: z.ZodObject;
  body?: z.ZodType;
  /** Success responses by status. */
  responses: Record<number, ResponseSpec>;
  /** Error codes this operation can answer besides the ones every authenticated call can. */
  errors?: ErrorCode[];
  /** Accepts an `Idempotency-Key` header. */
  idempotent?: boolean;
}

/** A webhook event payload (the OpenAPI 3.1 `webhooks` section). */
export interface WebhookSpec {
  /** Event type, e.g. `creator.updated`. */
  name: string;
  summary: string;
  description?: string;
  /** The delivered body `{type, timestamp, data}`. */
  payload: z.ZodType;
}

/** Collects operations, webhook payloads and named schemas; one per app. */
export class OpenApiRegistry {
  readonly operations: OperationSpec[] = [];
  readonly webhooks: WebhookSpec[] = [];
  readonly schemas = new Map<string, z.ZodType>();

  /** Registers an operation; a duplicate method+path is a programming error. */
  addOperation(op: OperationSpec): void {
    if (this.operations.some((o) => o.method === op.method && o.path === op.path)) {
      throw new Error(`operation ${op.method.toUpperCase()} ${op.path} registered twice`);
    }
    if (this.operations.some((o) => o.operationId === op.operationId)) {
      throw new Error(`operationId ${op.operationId} registered twice`);
    }
    this.operations.push(op);
  }

  /** Registers a webhook event payload schema. */
  addWebhook(hook: WebhookSpec): void {
    if (this.webhooks.some((w) => w.name === hook.name)) throw new Error(`webhook ${hook.name} registered twice`);
    this.webhooks.push(hook);
  }

  /** A named component schema (`#/components/schemas/<name>`), for shared shapes. */
  addSchema(name: string, schema: z.ZodType): void {
    this.schemas.set(name, schema);
  }
}
