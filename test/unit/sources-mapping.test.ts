import { describe, expect, it } from 'vitest';
import { later } from '../../pipelines/sources/http/configured-http.source.js';
import { linkNext, paginatorFor } from '../../pipelines/sources/http/paginators.js';
import { compileMapping, MappingError } from '../../pipelines/sources/http/record-mapping.js';
import { SourceSecrets } from '../../pipelines/sources/config/secrets.js';

const at = { page: 2, index: 5 };

describe('field mapping', () => {
  const mapper = compileMapping(
    'audience',
    {
      platform: { const: 'youtube' },
      handle: 'channel.handle',
      dimension: { const: 'gender' },
      key: 'gender',
      pct: { path: 'share', convert: 'ratio_to_percent' },
      as_of: { pulled_at: true },
    },
    '2026-11-21T00:00:00.000Z',
  );

  it('renames, reads nested paths, sets constants and the pull time, and converts a ratio to a percent', () => {
    expect(mapper.columns).toEqual(['platform', 'handle', 'dimension', 'key', 'pct', 'as_of']);
    expect(mapper.map({ channel: { handle: '@a' }, gender: 'female', share: 0.034 }, at)).toEqual([
      'youtube',
      '@a',
      'gender',
      'female',
      3.4,
      '2026-11-21T00:00:00.000Z',
    ]);
  });

  it('an absent value is empty (validation decides), unless the field is required', () => {
    expect(mapper.map({ gender: 'male', share: 0.5 }, at)).toEqual([
      'youtube',
      null,
      'gender',
      'male',
      50,
      '2026-11-21T00:00:00.000Z',
    ]);
    const strict = compileMapping('creators', { followers: { path: 'stats.subs', required: true } }, '');
    expect(() => strict.map({ stats: {} }, at)).toThrow('page 2, record 5: field followers (stats.subs): missing');
  });

  it.each([
    [{ share: 'most' }, 'field pct (share): expected a number, got "most"'],
    [{ channel: 'plain', share: 1 }, 'field handle (channel.handle): cannot read handle of "plain"'],
    [{ gender: { code: 'f' }, share: 1 }, 'field key (gender): expected a single value, got an object'],
  ])('a record that does not fit fails with page, record and field: %j', (record, message) => {
    expect(() => mapper.map(record, at)).toThrow(MappingError);
    expect(() => mapper.map(record, at)).toThrow(`page 2, record 5: ${message}`);
  });

  it('converts API counts sent as text, Unix times and scales', () => {
    const m = compileMapping(
      'creators',
      {
        followers: { path: 'subs', convert: 'integer' },
        updated_at: { path: 't', convert: 'unix_seconds_to_time' },
        posts_count: { path: 'k', scale: 1000 },
      },
      '',
    );
    expect(m.map({ subs: '12345', t: 1_795_000_000, k: 1.5 }, at)).toEqual([12345, '2026-11-18T11:06:40.000Z', 1500]);
    expect(() => m.map({ subs: '12.5' }, at)).toThrow('expected a whole number');
  });

  it("no fields take the keys named like the entity's columns", () => {
    const m = compileMapping('campaign_creators', undefined, '');
    expect(m.map({ campaign_id: 'cmp_1', platform: 'tiktok', handle: '@x', posts: 2, extra: 1 }, at)).toEqual([
      'cmp_1',
      'tiktok',
      '@x',
      null,
      2,
    ]);
  });
});

describe('paginators', () => {
  it('reads the next link of a Link header among others', () => {
    expect(linkNext('<https://a.example/x?page=3>; rel="next", <https://a.example/x?page=9>; rel="last"')).toBe(
      'https://a.example/x?page=3',
    );
    expect(linkNext('<https://a.example/x?page=1>; rel="prev"')).toBeNull();
    expect(linkNext(null)).toBeNull();
  });

  it('refuses a next-page URL on another origin, which would carry the credentials away', () => {
    const p = paginatorFor({ type: 'next_url', next_url_path: 'next' });
    const url = new URL('https://api.example/v1/items');
    expect(p.next({ url, body: { next: '/v1/items?p=2' }, headers: new Headers(), records: 3 })?.href).toBe(
      'https://api.example/v1/items?p=2',
    );
    expect(() => p.next({ url, body: { next: 'https://evil.example/x' }, headers: new Headers(), records: 3 })).toThrow(
      'away from https://api.example',
    );
  });

  it('offset and page number stop at a short page or at the total', () => {
    const offset = paginatorFor({
      type: 'offset',
      offset_param: 'offset',
      limit_param: 'limit',
      limit: 2,
      total_path: 'total',
    });
    const first = offset.first(new URL('https://a.example/i'));
    expect(first.search).toBe('?offset=0&limit=2');
    expect(
      offset.next({ url: first, body: { total: 4 }, headers: new Headers(), records: 2 })?.searchParams.get('offset'),
    ).toBe('2');
    expect(
      offset.next({
        url: new URL('https://a.example/i?offset=2&limit=2'),
        body: { total: 4 },
        headers: new Headers(),
        records: 2,
      }),
    ).toBeNull();
    const pages = paginatorFor({ type: 'page_number', page_param: 'page', start: 1 });
    expect(
      pages.next({ url: new URL('https://a.example/i?page=1'), body: {}, headers: new Headers(), records: 0 }),
    ).toBeNull();
  });
});

describe('watermarks and secrets', () => {
  it('the later cursor value compares numbers as numbers and times as times', () => {
    expect(later('9', '10')).toBe('10');
    expect(later('2026-11-20T10:00:00+01:00', '2026-11-20T09:30:00Z')).toBe('2026-11-20T09:30:00Z');
    expect(later(null, 'a')).toBe('a');
  });

  it('every secret handed out is scrubbed from text, also URL-encoded and in Base64', () => {
    const s = new SourceSecrets('partner', (name) => ({ T: 'to/ken+1' })[name]);
    const value = s.secret({ env: 'T' });
    const text = `a ${value} b ${encodeURIComponent(value)} c ${Buffer.from(value).toString('base64')}`;
    expect(s.redact(text)).toBe('a *** b *** c ***');
    expect(() => s.secret({ env: 'MISSING' })).toThrow('the environment variable MISSING is not set');
  });
});
