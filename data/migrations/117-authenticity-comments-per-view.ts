import type { Migration } from './migration.js';

/**
 * Comments per view of the creator's typical post (issue 31): the median
 * comments over the median views, in percent. Engagement pods comment on each
 * other's posts without the reach a post's comments come with. NULL until the
 * creator's features are next computed, and for creators without views.
 * docs/authenticity.md, `comments_per_view`.
 */
export const authenticityCommentsPerView: Migration = {
  version: 117,
  name: 'authenticity comments per view',
  statements: [`ALTER TABLE authenticity_features ADD COLUMN comments_per_view DOUBLE`],
};
