import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from '../config/config.js';
import { NICHES, PLATFORMS } from '../data/seed/reference-data.js';
import { Store } from '../data/store.js';
import type { LoadProgress } from '../pipelines/engine/pipeline.js';
import { POSTS_DERIVATION_STEP, runPipeline } from '../pipelines/engine/runner.js';
import { getPipeline } from '../pipelines/registry.js';
import { filesSource } from '../pipelines/sources/files.source.js';
import { openBenchStore } from './bench-store.js';

/** Posts per creator in the bench's files (the demo's). */
const POSTS_PER_CREATOR = 24;

export interface PostsIngestFigures {
  posts: number;
  creators: number;
  /** A bare `INSERT … SELECT` of the Parquet file into `posts`, the creator ids looked up by (platform, handle), committed. */
  bareInsertSeconds: number;
  /**
   * The posts pipeline on the same file into the same store, to the load's commit: validation,
   * quarantine, merge, prune, the pending record and the run record. The posts are stored from then on.
   */
  ingestSeconds: number;
  /** bare ÷ ingest of the median pair: the target is ≥ 0.5×. */
  ingestToBareRatio: number;
  /** From the load's commit to the commit of what follows it: tags parsed, the creators' content derived, their events written. */
  derivedSeconds: number;
  /** The whole call (what `cds ingest` takes). */
  totalSeconds: number;
  rowsPerSecond: number;
  /** Seconds in each phase of the median pair's ingest (validating, merging to the commit, then parsing: the derivation after it). */
  phases: Record<string, number>;
  pairRatios: number[];
  loadAverages: number[];
  eventsEmitted: number;
}

/** Creators `@creator1…N` (as the creators bench names them) in a fresh store, by a bare insert: the posts' parents. */
async function baseStore(dir: string, creators: number): Promise<string> {
  const dataDir = join(dir, 'base');
  const store = await openBenchStore(testConfig(dataDir).dbPath, { threads: 2 });
  try {
    await store.run(
      `INSERT INTO creators (creator_id, platform, handle, display_name, niche, country, language, followers, following, verified, updated_at, profile_as_of)
      SELECT i, (?::VARCHAR[])[1 + i % 5], '@creator' || i, 'Creator ' || i, (?::VARCHAR[])[1 + (hash(i, 'n') % 20)::INTEGER], 'US', 'en',
        (1000 + hash(i, 'f') % 2000000)::BIGINT, 100, false, TIMESTAMP '2026-11-01', TIMESTAMP '2026-11-01'
      FROM range(1, ? + 1) t(i)`,
      [[...PLATFORMS], [...NICHES], creators],
    );
    await store.run('CHECKPOINT');
  } finally {
    await store.close();
  }
  return dataDir;
}

/** Posts of the last 90 days with captions (words, hashtags, a mention now and then) and a brand on sponsored ones, as Parquet. */
async function writePosts(path: string, posts: number, now: Date): Promise<void> {
  const gen = await Store.open(':memory:');
  try {
    await gen.run(
      `COPY (
        SELECT (?::VARCHAR[])[1 + c % 5] AS platform, '@creator' || c AS handle, 'p' || i AS post_id,
          ?::TIMESTAMP - INTERVAL (hash(i, 'at') % (90 * 86400)) SECOND AS posted_at,
          (['post', 'reel', 'short', 'video', 'story', 'live'])[1 + (hash(i, 't') % 6)::INTEGER] AS type,
          (hash(i, 'l') % 5000)::BIGINT AS likes, (hash(i, 'c') % 200)::BIGINT AS comments, (hash(i, 'v') % 90000)::BIGINT AS views,
          (hash(i, 's') % 100)::BIGINT AS shares, hash(i, 'sp') % 10 = 0 AS sponsored,
          CASE WHEN hash(i, 'cap') % 25 = 0 THEN NULL ELSE 'Day ' || (i % 365) || ' of the plan, honest notes and tips #tag' || (hash(i, 'h1') % 40)
            || ' #Tag' || (hash(i, 'h2') % 400) || CASE WHEN hash(i, 'm') % 8 = 0 THEN ' with @creator' || (1 + hash(i, 'mw') % ?) ELSE '' END
            || CASE WHEN hash(i, 'sp') % 10 = 0 THEN ' #ad @brand' || (hash(i, 'b') % 50) ELSE '' END || ' ✨' END AS caption,
          CASE WHEN hash(i, 'sp') % 10 = 0 THEN '@brand' || (hash(i, 'b') % 50) END AS brand
        FROM (SELECT i, 1 + i // ${POSTS_PER_CREATOR} AS c FROM range(0, ?) t(i))
      ) TO '${path}' (FORMAT parquet)`,
      [[...PLATFORMS], now.toISOString().replace('Z', ''), Math.ceil(posts / POSTS_PER_CREATOR), posts],
    );
  } finally {
    await gen.close();
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, (performance.now() - started) / 1000];
}

const COLUMNS = 'post_id, posted_at, type, likes, comments, views, shares, sponsored, caption, brand';

/** The bare insert on a copy of the base store. */
async function bareInsert(base: string, dir: string, file: string): Promise<number> {
  cpSync(base, dir, { recursive: true });
  const store = await Store.open(testConfig(dir).dbPath, { threads: 2 });
  try {
    const [, seconds] = await timed(() =>
      store.transaction(async (tx) => {
        await tx.run(`INSERT INTO posts (creator_id, ${COLUMNS}) SELECT c.creator_id, ${COLUMNS.split(', ')
          .map((x) => `f.${x}`)
          .join(', ')}
        FROM read_parquet('${file}') f JOIN creators c ON c.platform = f.platform AND c.handle = f.handle`);
      }),
    );
    return seconds;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface IngestRun {
  /** To the load's commit. */
  seconds: number;
  total: number;
  phases: Record<string, number>;
  events: number;
}

/** A progress line on stderr: the figures of a long run as they come (a 24M-post pair takes minutes). */
function progress(line: string): void {
  process.stderr.write(`posts bench: ${line}\n`);
}

async function ingest(
  base: string,
  dir: string,
  file: string,
  now: Date,
  onCommitted: (seconds: number) => void,
): Promise<IngestRun> {
  cpSync(base, dir, { recursive: true });
  const config = testConfig(dir);
  const store = await Store.open(config.dbPath, { threads: 2 });
  const started = performance.now();
  const marks: Array<[string, number]> = [];
  const onProgress = (p: LoadProgress): void => {
    const phase = p.step.split(' ')[0] ?? p.step;
    if (marks.some(([name]) => name === phase)) return;
    marks.push([phase, performance.now()]);
    if (p.step === POSTS_DERIVATION_STEP) onCommitted((performance.now() - started) / 1000);
  };
  try {
    const [outcome, seconds] = await timed(() =>
      runPipeline({ store, config, now: () => now }, getPipeline('posts'), {
        source: filesSource([{ entity: 'posts', file, format: 'parquet' }]),
        onProgress,
      }),
    );
    const run = outcome.runs[0];
    if (run?.status !== 'succeeded' || run.rows_rejected > 0 || run.warnings.length > 0)
      throw new Error(`posts ingest failed: ${run?.error ?? JSON.stringify(run)}`);
    const end = performance.now();
    const phases = Object.fromEntries(
      marks.map(([name, at], i) => [name, round(((marks[i + 1]?.[1] ?? end) - (i === 0 ? started : at)) / 1000)]),
    );
    // the derivation's step starts right after the load's commit
    const committed = marks.find(([name]) => name === POSTS_DERIVATION_STEP.split(' ')[0])?.[1];
    if (committed === undefined) throw new Error('the posts load did not leave its derivation to follow its commit');
    return { seconds: (committed - started) / 1000, total: seconds, phases, events: run.events_emitted };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `posts` posts with captions (24 per creator) through the posts pipeline into
 * a store holding their creators, against a bare `INSERT … SELECT` of the same
 * file into the same table of a copy of that store; `repeats` pairs back to
 * back, the median pair reported.
 */
export async function runPostsIngestBench(
  options: { posts?: number; repeats?: number } = {},
): Promise<PostsIngestFigures> {
  const posts = options.posts ?? 2_000_000;
  const repeats = Math.max(1, options.repeats ?? 3);
  const creators = Math.ceil(posts / POSTS_PER_CREATOR);
  const dir = mkdtempSync(join(tmpdir(), 'cds-bench-posts-'));
  const now = new Date();
  try {
    progress(`writing ${creators.toLocaleString('en-US')} creators and ${posts.toLocaleString('en-US')} posts`);
    const base = await baseStore(dir, creators);
    const file = join(dir, 'posts.parquet');
    await writePosts(file, posts, now);
    const pairs: Array<{ bare: number; run: IngestRun; loadAverage: number }> = [];
    for (let i = 0; i < repeats; i++) {
      const loadAverage = round(loadavg()[0] ?? 0);
      const bare = await bareInsert(base, join(dir, `bare-${i}`), file);
      progress(`pair ${i + 1}: bare insert ${bare.toFixed(1)} s`);
      const run = await ingest(base, join(dir, `ingest-${i}`), file, now, (seconds) =>
        progress(
          `pair ${i + 1}: the load committed after ${seconds.toFixed(1)} s (${(bare / seconds).toFixed(3)}× the bare insert); deriving`,
        ),
      );
      pairs.push({ bare, run, loadAverage });
    }
    const sorted = [...pairs].sort((a, b) => a.bare / a.run.seconds - b.bare / b.run.seconds);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    return {
      posts,
      creators,
      bareInsertSeconds: round(median.bare),
      ingestSeconds: round(median.run.seconds),
      ingestToBareRatio: round(median.bare / median.run.seconds),
      derivedSeconds: round(median.run.total - median.run.seconds),
      totalSeconds: round(median.run.total),
      rowsPerSecond: Math.round(posts / median.run.seconds),
      phases: median.run.phases,
      pairRatios: pairs.map((p) => round(p.bare / p.run.seconds)),
      loadAverages: pairs.map((p) => p.loadAverage),
      eventsEmitted: median.run.events,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
