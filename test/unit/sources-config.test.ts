import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SourceConfigError, loadSources } from '../../pipelines/sources/config/sources-file.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function file(content: unknown, { ext = 'json', mode = 0o600 } = {}): string {
  const path = join(dir, `sources-${++n}.${ext}`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  chmodSync(path, mode);
  return path;
}

const http = (over: Record<string, unknown> = {}) => ({
  sources: {
    partner: {
      kind: 'http_json',
      entity: 'creators',
      base_url: 'https://api.partner.example/v2',
      path: '/creators',
      ...over,
    },
  },
});

describe('the sources file', () => {
  it('reads JSON and YAML with defaults filled in; no file means no sources', () => {
    const json = loadSources(file(http({ schedule: '*/10 * * * *' })));
    expect(json.get('partner')).toMatchObject({
      kind: 'http_json',
      paginator: { type: 'none' },
      retry: { attempts: 5 },
      schedule: '*/10 * * * *',
    });
    const yaml = loadSources(
      file(
        'sources:\n  feed:\n    kind: remote_file\n    entity: posts\n    urls: [https://cdn.example/posts.parquet]\n',
        { ext: 'yaml' },
      ),
    );
    expect(yaml.get('feed')).toMatchObject({ kind: 'remote_file', entity: 'posts' });
    expect(loadSources(null).size).toBe(0);
  });

  it.each([
    [
      'a credential header written in clear in a file others may read',
      () => file(http({ headers: { 'X-Api-Key': 'abc123' } }), { mode: 0o644 }),
      'is readable by others (mode 0644) and sources.partner.headers.X-Api-Key looks like a credential written in clear',
    ],
    [
      'a credential query parameter written in clear in a file others may read',
      () => file(http({ params: { access_token: 'abc123' } }), { mode: 0o640 }),
      'sources.partner.params.access_token looks like a credential',
    ],
    ['missing', () => join(dir, 'nope.json'), 'does not exist'],
    ['not JSON', () => file('{"sources": '), 'is not valid JSON'],
    [
      'a secret written in the file',
      () => file(http({ auth: { type: 'bearer', token: 'abc123' } })),
      'sources.partner.auth.token',
    ],
    ['an unknown entity', () => file(http({ entity: 'videos' })), 'sources.partner.entity'],
    ['a bad schedule', () => file(http({ schedule: 'hourly' })), 'not a cron expression'],
    [
      'plain http to a remote host',
      () => file(http({ base_url: 'http://api.partner.example' })),
      'only https:// URLs are allowed',
    ],
    [
      'plain http to this machine without the switch',
      () => file(http({ base_url: 'http://127.0.0.1:9000' })),
      'set allow_insecure_localhost: true',
    ],
    [
      'an unknown column',
      () =>
        file(http({ fields: { platform: 'p', handle: 'h', niche: 'n', followers: 'f', updated_at: 'u', views: 'v' } })),
      'creators has no column(s) views',
    ],
    [
      'a required column left unmapped',
      () => file(http({ fields: { platform: 'p', handle: 'h' } })),
      'map the required creators column(s) niche, followers, updated_at',
    ],
    [
      'a remote file of unknown format',
      () => file({ sources: { f: { kind: 'remote_file', entity: 'posts', urls: ['https://cdn.example/export'] } } }),
      'set format',
    ],
    ['an unknown key', () => file(http({ pagination: {} })), 'pagination'],
  ])('refuses %s, naming what to fix', (_label, path, message) => {
    expect(() => loadSources(path())).toThrow(SourceConfigError);
    expect(() => loadSources(path())).toThrow(message);
  });

  it('refuses a source named like a built-in pipeline', () => {
    expect(() => loadSources(file({ sources: { creators: http().sources.partner } }), ['creators'])).toThrow(
      'taken by a built-in pipeline',
    );
  });

  it('loads a file others may read when its secrets are environment variable names (as a git checkout leaves the examples)', () => {
    const sources = loadSources(
      file(http({ headers: { 'X-Api-Key': { env: 'PARTNER_KEY' }, Accept: 'application/json' } }), { mode: 0o644 }),
    );
    expect(sources.size).toBe(1);
  });

  it('allows plain http to this machine when the source says so', () => {
    expect(loadSources(file(http({ base_url: 'http://127.0.0.1:9000', allow_insecure_localhost: true }))).size).toBe(1);
  });
});
