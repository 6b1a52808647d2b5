import type { Queryable } from '../store.js';

/**
 * Finding bot purges in the follower history (issue 31, docs/authenticity.md
 * "How purge days are found"), for stores whose data came without purge dates.
 * Per platform and day: the share of creators whose followers fell by more than
 * `minDrop` since the day before. A purge takes bots from nearly every account
 * at once, so that share jumps on a purge day; on other days it moves only with
 * sampling noise. A day whose share lies `minZ` robust SDs above the platform's
 * median day (the SD is 1.4826 × the MAD over its days, at least the binomial
 * SD of the share on that day's count) is a detected purge.
 */
export const PURGE_DETECTION = {
  /** A fall counts when the day's change is below −0.3 % (a plain fall: 4 in 10 creators fall on any day). */
  minDrop: 0.003,
  /** Robust SDs above the platform's median day. */
  minZ: 4.5,
  /** Creators read at most (every k-th creator id beyond this): shares need thousands, not millions. */
  maxCreators: 50_000,
  /** A day counts with at least this many creators read on it and the day before. */
  minCreatorsPerDay: 50,
  /** A platform is judged with at least this many such days (a baseline to be unusual against). */
  minDays: 28,
} as const;

/**
 * Replaces the detected purge days (`platform_purges.source = 'detected'`) with
 * those found in the current follower history, for each platform that has no
 * given days (rows written as data stay authoritative). One aggregate pass per
 * platform-day over a sample of at most `maxCreators` creators. Answers the
 * number of days detected.
 */
export async function detectPurges(db: Queryable): Promise<number> {
  const d = PURGE_DETECTION;
  const creators = (await db.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM creators'))?.n ?? 0;
  const step = Math.max(1, Math.floor(creators / d.maxCreators));
  await db.run(`DELETE FROM platform_purges WHERE source = 'detected'`);
  return db.run(`INSERT INTO platform_purges (platform, purge_date, source)
    WITH h AS (
      SELECT c.platform, f.date,
        f.followers::DOUBLE / lag(f.followers) OVER w - 1 AS change, lag(f.followers) OVER w AS prev,
        date_diff('day', lag(f.date) OVER w, f.date) AS gap
      FROM follower_history f JOIN creators c ON c.creator_id = f.creator_id
      WHERE ${step > 1 ? `f.creator_id % ${step} = 0 AND ` : ''}c.platform NOT IN (SELECT platform FROM platform_purges WHERE source IS DISTINCT FROM 'detected')
      WINDOW w AS (PARTITION BY f.creator_id ORDER BY f.date)
    ), days AS (
      SELECT platform, date, count(*) AS n, avg((change < -${d.minDrop}::DOUBLE)::DOUBLE) AS fell
      FROM h WHERE gap = 1 AND prev > 0 GROUP BY platform, date HAVING count(*) >= ${d.minCreatorsPerDay}
    ), usual AS (
      SELECT platform, median(fell) AS m, mad(fell) AS md FROM days GROUP BY platform HAVING count(*) >= ${d.minDays}
    )
    SELECT days.platform, days.date, 'detected'
    FROM days JOIN usual ON usual.platform = days.platform
    WHERE days.fell - usual.m >= ${d.minZ}::DOUBLE * greatest(1.4826 * usual.md, sqrt(usual.m * (1 - usual.m) / days.n))`);
}
