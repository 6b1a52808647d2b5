import type { Migration } from './migration.js';

/**
 * Following churn (issue 31): how far the accounts a creator follows went up
 * and down again over the history, beyond their net change — the trace of
 * follow-for-follow, which follows in sprees and unfollows in bulk. NULL until
 * the creator's features are next computed (a missing value is never a penalty).
 * And likes per view: bought likes and pods raise likes that no viewers brought.
 */
export const authenticityFollowingChurn: Migration = {
  version: 109,
  name: 'authenticity following churn and likes per view',
  statements: [
    `ALTER TABLE authenticity_features ADD COLUMN following_churn_pct DOUBLE`,
    `ALTER TABLE authenticity_features ADD COLUMN likes_per_view DOUBLE`,
  ],
};
