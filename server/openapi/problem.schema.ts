import { z } from 'zod';
import { ERROR_CODES } from '../../data/errors.js';

/** The RFC 9457 problem body, as documented in the OpenAPI document. */
export const problemSchema = z.object({
  type: z.string().describe('A URI naming the error type (the docs page of `code`)'),
  title: z.string(),
  status: z.number().int(),
  code: z.enum(ERROR_CODES),
  detail: z.string().describe('What went wrong and what to fix'),
  request_id: z.string(),
  errors: z.array(z.object({ param: z.string().optional(), field: z.string().optional(), message: z.string() })).optional(),
  platforms: z.array(z.string()).optional().describe('For `ambiguous_handle`: the platforms the handle exists on'),
}).meta({ description: 'An RFC 9457 problem' });
