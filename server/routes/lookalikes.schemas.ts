import { z } from 'zod';
import { SEARCH_FILTER_PARAMS } from '../../data/creators/search-filters.js';
import { PLATFORMS } from '../../data/reference/taxonomy.js';
import { cursorParam, limitParam } from '../http/pagination.js';
import { CreatorItemSchema } from './creators.schemas.js';

const { platform: _searchPlatform, ...NARROWING_PARAMS } = SEARCH_FILTER_PARAMS;

/**
 * GET /v1/creators/{handle}/lookalikes query parameters: the creator's platform (as on the profile),
 * the basis, every search filter but `platform` to narrow the matches, and paging.
 */
export const LookalikesQuery = z.object({
  platform: z.enum(PLATFORMS).optional().describe('The creator’s platform; needed when the handle exists on several'),
  basis: z
    .enum(['content', 'audience', 'both'])
    .default('both')
    .meta({ default: 'both' })
    .describe(
      'content: niche, hashtags, mentions and caption words (TF-IDF cosine); audience: the audience shares by country, age, gender, language and interest (histogram intersection); both: their mean',
    ),
  ...NARROWING_PARAMS,
  limit: limitParam,
  cursor: cursorParam,
});

export const LookalikeReasonSchema = z.object({
  kind: z.enum(['niche', 'hashtags', 'mentions', 'caption_words', 'audience']),
  detail: z
    .string()
    .describe(
      'What is shared, e.g. "12 shared hashtags: #hiit, #mealprep…" or "audience 84 % alike: US 41 % vs 38 %…" (the creator’s share first)',
    ),
});

export const LookalikeItemSchema = CreatorItemSchema.extend({
  similarity: z.number().min(0).max(1).describe('0–1, 4 decimals; the answer is ordered by it, then by creator'),
  reasons: z.array(LookalikeReasonSchema).describe('What the two creators share, for the basis asked'),
});

export const LookalikesResponse = z.object({
  creator: CreatorItemSchema.describe('The creator the matches are like'),
  creators: z.array(LookalikeItemSchema).describe('Most similar first; never the creator itself'),
  next_cursor: z.string().nullable(),
});
