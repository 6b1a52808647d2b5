import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toCreatorItem } from '../../../data/creators/creator-item.js';
import { Store } from '../../../data/store.js';
import { entityForFile } from '../../../pipelines/entities/entity.js';
import { creatorItemJson } from '../../../pipelines/engine/creator-events.js';
import { formatOf } from '../../../pipelines/engine/stage.js';
import { ISO_COUNTRY_CODES, ISO_LANGUAGE_CODES } from '../../../data/reference/iso-codes.js';
import { backoff } from '../../../pipelines/sources/http-json.source.js';

describe('file names', () => {
  it('pick the entity by the longest matching name, however it is spelled', () => {
    expect(entityForFile('creators.csv')).toBe('creators');
    expect(entityForFile('creators-2026-11.csv')).toBe('creators');
    expect(entityForFile('Campaign-Metrics_week1.parquet')).toBe('campaign_metrics');
    expect(entityForFile('campaign_creators.ndjson')).toBe('campaign_creators');
    expect(entityForFile('campaigns.json')).toBe('campaigns');
    expect(entityForFile('follower-history.csv')).toBe('follower_history');
    expect(entityForFile('creatorsx.csv')).toBeNull();
    expect(entityForFile('notes.csv')).toBeNull();
  });

  it('pick the format by extension', () => {
    expect(formatOf('a.csv')).toBe('csv');
    expect(formatOf('a.CSV.gz')).toBe('csv');
    expect(formatOf('a.jsonl')).toBe('ndjson');
    expect(formatOf('a.ndjson')).toBe('ndjson');
    expect(formatOf('a.json')).toBe('json');
    expect(formatOf('a.parquet')).toBe('parquet');
    expect(formatOf('a.xlsx')).toBeNull();
  });
});

describe('reference codes', () => {
  it('hold the full ISO 3166-1 alpha-2 and ISO 639-1 lists, not only the demo countries', () => {
    expect(new Set(ISO_COUNTRY_CODES).size).toBe(249);
    expect(new Set(ISO_LANGUAGE_CODES).size).toBe(183);
    expect(ISO_COUNTRY_CODES).toEqual(expect.arrayContaining(['US', 'IS', 'AQ', 'ZW']));
    expect(ISO_LANGUAGE_CODES).toEqual(expect.arrayContaining(['en', 'yo', 'zu']));
    expect(ISO_COUNTRY_CODES.every((c) => /^[A-Z]{2}$/.test(c))).toBe(true);
  });
});

describe('backoff', () => {
  it('stays within base · 2^(attempt-1), with jitter', () => {
    const delays = Array.from({ length: 200 }, () => backoff(100, 3));
    expect(Math.max(...delays)).toBeLessThanOrEqual(400);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(new Set(delays).size).toBeGreaterThan(10);
  });
});

describe('creator item in events', () => {
  let store: Store;
  beforeAll(async () => {
    store = await Store.open(':memory:');
  });
  afterAll(async () => {
    await store.close();
  });

  it('is built in SQL exactly as toCreatorItem builds it', async () => {
    await store.run(`INSERT INTO creators (creator_id, platform, handle, display_name, niche, country, followers, verified, updated_at,
      engagement_rate, audience_us_pct) VALUES (1, 'x', '@a', NULL, 'tech', 'US', 12345678901, true, now()::TIMESTAMP, 2.5, NULL)`);
    const row = await store.one('SELECT * FROM creators WHERE creator_id = 1');
    const json = await store.one<{ j: string }>(
      `SELECT ${creatorItemJson('c')} AS j FROM creators c WHERE creator_id = 1`,
    );
    expect(JSON.parse(json?.j ?? '{}')).toEqual(toCreatorItem(row ?? {}));
  });
});
