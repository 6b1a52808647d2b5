import { z } from 'zod';
import { ERROR_CODES } from '../../data/errors.js';

/**
 * The RFC 9457 problem body, as documented in the OpenAPI document. Every
 * extension member a domain error can carry (`DomainError.extensions`) is
 * declared here: the schema is closed, so a validating client would refuse an
 * undeclared one.
 */
export const problemSchema = z
  .object({
    type: z.string().describe('A URI naming the error type (the docs page of `code`)'),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(ERROR_CODES),
    detail: z.string().describe('What went wrong and what to fix'),
    request_id: z.string(),
    errors: z
      .array(z.object({ param: z.string().optional(), field: z.string().optional(), message: z.string() }))
      .max(50)
      .optional()
      .describe('Each offending parameter or field, at most 50; `errors_omitted` counts the rest'),
    errors_omitted: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('How many more offending parameters or fields there were than `errors` lists'),
    platforms: z.array(z.string()).optional().describe('For `ambiguous_handle`: the platforms the handle exists on'),
    creators: z
      .array(z.object({ handle: z.string(), platform: z.string() }))
      .optional()
      .describe('For `follower_sample_missing`: the creators of the request that have no follower sample'),
    required_scope: z.string().optional().describe('For `insufficient_scope`: the scope the operation needs'),
    limit: z.string().optional().describe('For `limit_exceeded`: which plan limit, e.g. `lists`'),
    limit_value: z
      .number()
      .nullable()
      .optional()
      .describe("For `limit_exceeded`: the plan's value of that limit (null: unlimited)"),
    accepted: z
      .array(z.string())
      .optional()
      .describe('For `unsupported_media_type`: the request content types the operation accepts'),
    export_status: z
      .string()
      .optional()
      .describe("For `conflict` on an export download: the export's status (queued, running or failed)"),
  })
  .meta({ description: 'An RFC 9457 problem' });
