import { CHURN, FOLLOWER_BANDS, GROWTH, JUMPS, PURGES, REVERTED, SPIKES } from './model.js';

/** A DOUBLE literal: a bare 0.01 is a DECIMAL in DuckDB, and casting millions of doubles to it is slow. */
const dbl = (x: number): string => `${x}::DOUBLE`;

/**
 * A `WHERE` fragment choosing creators by `creator_id` (a scope table, an id
 * range, one bound id). It is spliced into each table's filter so DuckDB's zone
 * maps prune the big child tables, which are stored in creator order.
 */
export type CreatorFilter = (column: string) => string;

/** The follower band label for a `followers` column, from FOLLOWER_BANDS. */
export function sizeBandSql(followers: string): string {
  const arms = [...FOLLOWER_BANDS].reverse().map(([min, label]) => `WHEN ${followers} >= ${min} THEN '${label}'`);
  return `CASE ${arms.join(' ')} END`;
}

/**
 * One row of authenticity features per creator chosen by `filter`, from the
 * current data: follower-growth spikes and whether posting explains them
 * (history, posts), engagement and likes-per-comment (the derived creator
 * columns), following ratio and its growth, the audience quality mix, and the
 * audience share in the creator's own country and language, and the followers
 * lost on the days the platform purged bots (platform_purges). Every rate and
 * share is on the percent scale.
 */
export function featuresSelectSql(filter: CreatorFilter): string {
  return `WITH c AS (
      SELECT creator_id, platform, country, language, followers, following, engagement_rate, avg_likes, avg_comments
      FROM creators WHERE ${filter('creator_id')}
    ), h AS (
      SELECT creator_id, date, following, followers,
        followers - lag(followers) OVER w AS gain, lag(followers) OVER w AS prev,
        following - lag(following) OVER w AS following_change, lag(following) OVER w AS following_prev,
        -- a missing day makes the next change span several days: spread it when judging what is typical
        greatest(1, date_diff('day', lag(date) OVER w, date)) AS gap,
        -- the lowest of the next readings: a gain that is mostly gone again by then was a collection glitch (REVERTED)
        least(${Array.from({ length: REVERTED.lookAhead }, (_, k) => `lead(followers, ${k + 1}) OVER w`).join(', ')}) AS next_low,
        max(date) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last_date
      FROM follower_history WHERE ${filter('creator_id')}
      WINDOW w AS (PARTITION BY creator_id ORDER BY date)
    ), hs AS MATERIALIZED (
      -- one pass over the history: the typical change (a capped mean: as robust to the spikes themselves
      -- as a median, and far cheaper at 365 days × 1M creators), the candidate spike days, and steady growth
      -- (daily log changes capped at the spike threshold, so jumps, bought or viral, do not count as growth)
      SELECT creator_id, count(*) AS history_days,
        coalesce(avg(least(abs(gain) / prev / gap, ${dbl(SPIKES.minDailyGain)})) FILTER (WHERE prev > 0), 0) AS typical_change,
        arg_min(following, date) AS following_first, arg_max(following, date) AS following_last,
        arg_min(followers, date) AS followers_first, arg_max(followers, date) AS followers_last,
        -- following churn (CHURN): the sizeable daily moves of the accounts followed, up and down, against their mean
        coalesce(sum(abs(following_change)) FILTER (WHERE following_prev > 0
          AND abs(following_change) >= greatest(${dbl(CHURN.minDailyShare)} * following_prev, ${dbl(CHURN.minAccounts)})), 0) AS following_moves,
        avg(following) AS following_avg,
        list({'date': date, 'gain_share': gain::DOUBLE / prev, 'gap': gap})
          FILTER (WHERE prev > 0 AND gain >= ${dbl(Math.min(SPIKES.minDailyGain, JUMPS.minGain))} * prev
            AND NOT coalesce(next_low - prev < ${dbl(REVERTED.keptShare)} * gain, false)) AS candidates,
        date_diff('day', min(date), max(date)) AS span_days,
        sum(least(ln(followers / prev), ${dbl(SPIKES.minDailyGain)} * gap)) FILTER (WHERE prev > 0 AND followers > 0) AS steady_log,
        sum(least(ln(followers / prev), ${dbl(SPIKES.minDailyGain)} * gap))
          FILTER (WHERE prev > 0 AND followers > 0 AND date > last_date - ${GROWTH.recentDays}) AS recent_log,
        count(*) FILTER (WHERE date > last_date - ${GROWTH.recentDays}) AS recent_days,
        -- readings that may span a bot purge of any platform (the platform is checked in pd, on these few rows)
        list({'date': date, 'gap': gap, 'change': gain::DOUBLE / prev}) FILTER (WHERE prev > 0 AND gap <= ${PURGES.maxGap}
          AND date IN (SELECT purge_date + o::INTEGER FROM platform_purges, range(0, ${PURGES.maxGap}) t(o))) AS purge_readings
      FROM h GROUP BY creator_id
    ), pd AS (
      -- the purge drop: the mean change, as a drop, over the readings whose span holds a purge of the creator's platform
      SELECT x.creator_id, -avg(x.r.change) * 100 AS purge_drop_pct
      FROM (SELECT hs.creator_id, c.platform, unnest(hs.purge_readings) AS r
        FROM hs JOIN c ON c.creator_id = hs.creator_id WHERE len(hs.purge_readings) > 0) x
      WHERE EXISTS (SELECT 1 FROM platform_purges pp WHERE pp.platform = x.platform
        AND pp.purge_date > x.r.date - x.r.gap::INTEGER AND pp.purge_date <= x.r.date)
      GROUP BY x.creator_id
    ), sp AS (
      -- candidate days that are spikes (large against the typical day) or residual jumps (≥ JUMPS.minZ robust SDs of
      -- the creator's own daily noise): several small bought lots stay under the spike threshold, not under this one
      SELECT creator_id, s.date AS date, s.gain_share AS gain_share,
        s.gain_share >= ${dbl(SPIKES.minDailyGain)} AND s.gain_share >= ${dbl(SPIKES.typicalMultiple)} * typical_change * s.gap AS is_spike,
        history_days >= ${JUMPS.minHistoryDays} AND s.gain_share >= ${dbl(JUMPS.minGain)}
          AND s.gain_share >= ${dbl(JUMPS.minZ * JUMPS.sdPerTypical)} * typical_change * s.gap AS is_jump
      FROM (SELECT creator_id, typical_change, history_days, unnest(candidates) AS s FROM hs WHERE len(candidates) > 0)
      WHERE s.gain_share >= ${dbl(Math.min(SPIKES.typicalMultiple, JUMPS.minZ * JUMPS.sdPerTypical))} * typical_change * s.gap
    ), pw AS (
      SELECT creator_id, likes, views, comments, posted_at,
        posted_at > max(posted_at) OVER p - INTERVAL ${GROWTH.recentDays / 2} DAY AS recent_half,
        posted_at > max(posted_at) OVER p - INTERVAL ${GROWTH.recentDays} DAY AS in_window
      FROM posts WHERE ${filter('creator_id')}
      WINDOW p AS (PARTITION BY creator_id)
    ), reach AS (
      SELECT creator_id, count(*) AS posts_n, median(likes) AS med_likes, median(views) AS med_views, median(comments) AS med_comments,
        -- how likes moved between the older and the newer half of the recent posts (log ratio of medians)
        CASE WHEN count(*) FILTER (WHERE recent_half) >= ${GROWTH.minPostsPerHalf}
              AND count(*) FILTER (WHERE in_window AND NOT recent_half) >= ${GROWTH.minPostsPerHalf}
          THEN ln(greatest(median(likes) FILTER (WHERE recent_half), 1)
            / greatest(median(likes) FILTER (WHERE in_window AND NOT recent_half), 1))
        END AS likes_trend_log
      FROM pw GROUP BY creator_id
    ), spx AS (
      -- the window test sits in the aggregate, not the join condition, so the join stays a hash join on creator_id
      SELECT sp.creator_id, sp.date, sp.gain_share, sp.is_spike, sp.is_jump,
        coalesce(bool_or(po.posted_at::DATE BETWEEN sp.date - ${SPIKES.postWindowBefore} AND sp.date + ${SPIKES.postWindowAfter}
          AND (po.likes >= ${dbl(SPIKES.reachMultiple)} * r.med_likes OR po.views >= ${dbl(SPIKES.reachMultiple)} * r.med_views)), false)
          AS explained
      FROM sp
      LEFT JOIN reach r ON r.creator_id = sp.creator_id
      LEFT JOIN posts po ON po.creator_id = sp.creator_id
      GROUP BY sp.creator_id, sp.date, sp.gain_share, sp.is_spike, sp.is_jump
    ), sa AS (
      SELECT creator_id, count(*) FILTER (WHERE is_spike) AS spikes_n,
        count(*) FILTER (WHERE is_spike AND NOT explained) AS unexplained_spikes_n,
        coalesce(max(gain_share) FILTER (WHERE is_spike AND NOT explained), 0) AS max_unexplained_gain,
        coalesce(sum(gain_share) FILTER (WHERE is_spike AND NOT explained), 0) AS total_unexplained_gain,
        count(*) FILTER (WHERE is_jump AND NOT explained) AS unexplained_jumps_n,
        coalesce(sum(gain_share) FILTER (WHERE is_jump AND NOT explained), 0) AS unexplained_jump_gain,
        to_json(list({'date': strftime(date, '%Y-%m-%d'), 'gain_pct': round(gain_share * 100, 2), 'explained': explained}
          ORDER BY gain_share DESC) FILTER (WHERE is_spike)[1:${SPIKES.listed}])::VARCHAR AS spikes,
        to_json(list({'date': strftime(date, '%Y-%m-%d'), 'gain_pct': round(gain_share * 100, 2), 'explained': explained}
          ORDER BY gain_share DESC) FILTER (WHERE is_jump AND NOT explained)[1:${SPIKES.listed}])::VARCHAR AS jumps
      FROM spx GROUP BY creator_id
    ), a AS (
      SELECT au.creator_id,
        sum(pct) FILTER (WHERE dimension = 'quality' AND key = 'real') AS real_pct,
        sum(pct) FILTER (WHERE dimension = 'quality' AND key = 'suspicious') AS suspicious_pct,
        sum(pct) FILTER (WHERE dimension = 'quality' AND key = 'mass_followers') AS mass_followers_pct,
        sum(pct) FILTER (WHERE dimension = 'quality' AND key = 'influencers') AS influencers_pct,
        count(*) FILTER (WHERE dimension = 'quality') > 0 AS has_quality,
        CASE WHEN count(*) FILTER (WHERE dimension = 'country') > 0
          THEN coalesce(sum(pct) FILTER (WHERE dimension = 'country' AND key = c.country), 0) END AS own_country_pct,
        CASE WHEN count(*) FILTER (WHERE dimension = 'language') > 0
          THEN coalesce(sum(pct) FILTER (WHERE dimension = 'language' AND key = c.language), 0) END AS own_language_pct,
        -- the second-largest foreign country: the largest is usually everyone's neighbour or the US; a bought block is
        -- another one or two, while a global audience spreads over many countries, none large (audience_foreign_block)
        CASE WHEN count(*) FILTER (WHERE dimension = 'country') > 0
          THEN coalesce(list(pct ORDER BY pct DESC) FILTER (WHERE dimension = 'country' AND key <> c.country)[2], 0) END
          AS foreign_second_pct
      FROM audience au JOIN c ON c.creator_id = au.creator_id
      WHERE au.dimension IN ('quality', 'country', 'language') AND ${filter('au.creator_id')}
      GROUP BY au.creator_id
    )
    SELECT c.creator_id, c.platform, ${sizeBandSql('c.followers')} AS size_band, c.country, c.language, c.followers,
      coalesce(hs.history_days, 0)::INTEGER AS history_days, coalesce(r.posts_n, 0)::INTEGER AS posts_n,
      c.engagement_rate,
      CASE WHEN c.avg_comments > 0 THEN c.avg_likes / c.avg_comments END AS likes_per_comment,
      -- likes per view of the typical post: engagement out of proportion to the views (bought likes, pods)
      CASE WHEN r.med_views > 0 THEN r.med_likes / r.med_views * 100.0 END AS likes_per_view,
      -- comments per view of the typical post: comments no viewers brought (pods comment on each other's posts unseen)
      CASE WHEN r.med_views > 0 THEN r.med_comments / r.med_views * 100.0 END AS comments_per_view,
      CASE WHEN c.followers > 0 AND c.following IS NOT NULL THEN c.following * 100.0 / c.followers END AS following_ratio,
      -- following growth beyond follower growth: follow-back accounts follow as they are followed, churners far faster
      CASE WHEN hs.following_first > 0 AND hs.followers_first > 0 AND hs.followers_last > 0
        THEN ((hs.following_last::DOUBLE / hs.following_first) / (hs.followers_last::DOUBLE / hs.followers_first) - 1) * 100.0 END
        AS following_growth_pct,
      -- following churn: the moves beyond the net change, per year, as a share of the mean following (follow sprees undone)
      CASE WHEN hs.span_days >= ${CHURN.minSpanDays} AND hs.following_avg > 0
        THEN greatest(0, hs.following_moves - abs(hs.following_last - hs.following_first)) / hs.following_avg * 100.0
          * 365.0 / hs.span_days END AS following_churn_pct,
      CASE WHEN a.has_quality THEN coalesce(a.suspicious_pct, 0) + coalesce(a.mass_followers_pct, 0) END AS fake_audience_pct,
      CASE WHEN a.has_quality THEN coalesce(a.influencers_pct, 0) END AS influencers_pct,
      a.real_pct, a.suspicious_pct, CASE WHEN a.has_quality THEN coalesce(a.mass_followers_pct, 0) END AS mass_followers_pct,
      a.own_country_pct, a.own_language_pct, a.foreign_second_pct,
      hs.typical_change * 100 AS typical_daily_change_pct,
      coalesce(sa.spikes_n, 0)::INTEGER AS spikes_n, coalesce(sa.unexplained_spikes_n, 0)::INTEGER AS unexplained_spikes_n,
      coalesce(sa.max_unexplained_gain, 0) * 100 AS max_unexplained_gain_pct,
      coalesce(sa.total_unexplained_gain, 0) * 100 AS total_unexplained_gain_pct,
      CASE WHEN hs.span_days >= ${GROWTH.minSpanDays} THEN hs.steady_log * 365.0 / hs.span_days END AS growth_log_yr,
      -- growth of the recent half-window the posts' likes did not follow (followers up, likes flat)
      CASE WHEN hs.recent_days >= ${GROWTH.recentDays / 2} AND r.likes_trend_log IS NOT NULL
        THEN hs.recent_log / 2 - r.likes_trend_log END AS growth_vs_engagement,
      coalesce(sa.spikes, '[]') AS spikes,
      -- residual jumps need enough history to know the creator's own noise: NULL (not evaluated) before that
      CASE WHEN hs.history_days >= ${JUMPS.minHistoryDays} THEN coalesce(sa.unexplained_jumps_n, 0) END::INTEGER AS unexplained_jumps_n,
      CASE WHEN hs.history_days >= ${JUMPS.minHistoryDays} THEN coalesce(sa.unexplained_jump_gain, 0) * 100 END AS unexplained_jump_gain_pct,
      coalesce(sa.jumps, '[]') AS jumps,
      pd.purge_drop_pct
    FROM c
    LEFT JOIN hs ON hs.creator_id = c.creator_id
    LEFT JOIN reach r ON r.creator_id = c.creator_id
    LEFT JOIN sa ON sa.creator_id = c.creator_id
    LEFT JOIN a ON a.creator_id = c.creator_id
    LEFT JOIN pd ON pd.creator_id = c.creator_id`;
}

/** The columns `featuresSelectSql` answers, with their SQL types (authenticity_features minus computed_at). */
export const FEATURE_COLUMNS: Readonly<Record<string, string>> = {
  creator_id: 'INTEGER',
  platform: 'VARCHAR',
  size_band: 'VARCHAR',
  country: 'VARCHAR',
  language: 'VARCHAR',
  followers: 'BIGINT',
  history_days: 'INTEGER',
  posts_n: 'INTEGER',
  engagement_rate: 'DOUBLE',
  likes_per_comment: 'DOUBLE',
  likes_per_view: 'DOUBLE',
  comments_per_view: 'DOUBLE',
  following_ratio: 'DOUBLE',
  following_growth_pct: 'DOUBLE',
  following_churn_pct: 'DOUBLE',
  fake_audience_pct: 'DOUBLE',
  influencers_pct: 'DOUBLE',
  real_pct: 'DOUBLE',
  suspicious_pct: 'DOUBLE',
  mass_followers_pct: 'DOUBLE',
  own_country_pct: 'DOUBLE',
  own_language_pct: 'DOUBLE',
  foreign_second_pct: 'DOUBLE',
  typical_daily_change_pct: 'DOUBLE',
  spikes_n: 'INTEGER',
  unexplained_spikes_n: 'INTEGER',
  max_unexplained_gain_pct: 'DOUBLE',
  total_unexplained_gain_pct: 'DOUBLE',
  growth_log_yr: 'DOUBLE',
  growth_vs_engagement: 'DOUBLE',
  spikes: 'VARCHAR',
  unexplained_jumps_n: 'INTEGER',
  unexplained_jump_gain_pct: 'DOUBLE',
  jumps: 'VARCHAR',
  purge_drop_pct: 'DOUBLE',
};
