import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig, PROJECT_ROOT } from '../../../config/config.js';

describe('config', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.demo).toBe(true);
    expect(config.webhooks.retryScheduleSeconds).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names the variable when a value is bad', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ CDS_DEMO: 'maybe' })).toThrow(/CDS_DEMO/);
    expect(() => loadConfig({ CDS_WEBHOOK_RETRY_SCHEDULE: '5,soon' })).toThrow(/CDS_WEBHOOK_RETRY_SCHEDULE/);
  });

  it('needs the TLS certificate and key together', () => {
    expect(() => loadConfig({ CDS_TLS_CERT: '/tmp/cert.pem' })).toThrow(/CDS_TLS_CERT and CDS_TLS_KEY/);
  });

  it('reads CDS_DEMO=0 as an empty start and parses comma lists', () => {
    const config = loadConfig({
      CDS_DEMO: '0',
      CDS_WEBHOOK_ALLOW_HOSTS: 'localhost, 127.0.0.1',
      CDS_WEBHOOK_RETRY_SCHEDULE: '1,2,3',
    });
    expect(config.demo).toBe(false);
    expect(config.webhooks.allowHosts).toEqual(['localhost', '127.0.0.1']);
    expect(config.webhooks.retryScheduleSeconds).toEqual([1, 2, 3]);
  });

  it('keeps idle connections 65 s by default, above the 60 s of common load balancers, and CDS_KEEPALIVE_TIMEOUT_MS changes it', () => {
    expect(loadConfig({}).keepAliveTimeoutMs).toBe(65_000);
    expect(loadConfig({ CDS_KEEPALIVE_TIMEOUT_MS: '620000' }).keepAliveTimeoutMs).toBe(620_000);
    for (const bad of ['0', '999', 'soon', '1.5', '3600001']) {
      expect(() => loadConfig({ CDS_KEEPALIVE_TIMEOUT_MS: bad }), bad).toThrow(/CDS_KEEPALIVE_TIMEOUT_MS/);
    }
  });

  it('leaves /metrics open unless CDS_METRICS_TOKEN is set, and refuses a short token', () => {
    expect(loadConfig({}).metricsToken).toBeNull();
    expect(loadConfig({ CDS_METRICS_TOKEN: 'scrape-0123456789abcdef' }).metricsToken).toBe('scrape-0123456789abcdef');
    expect(() => loadConfig({ CDS_METRICS_TOKEN: 'short' })).toThrow(/CDS_METRICS_TOKEN/);
    expect(() => loadConfig({ CDS_METRICS_TOKEN: 'has a space in it, sixteen+' })).toThrow(/CDS_METRICS_TOKEN/);
  });

  it('puts the default data folder in the project root whatever folder the command runs in; a given CDS_DATA_DIR is relative to that folder', () => {
    const base = { root: '/srv/cds', cwd: '/srv/cds/docs/examples' };
    expect(loadConfig({}, base)).toMatchObject({
      dataDir: '/srv/cds/var',
      dbPath: '/srv/cds/var/cds.duckdb',
      adminSocketPath: '/srv/cds/var/admin.sock',
    });
    expect(loadConfig({ CDS_DATA_DIR: 'store' }, base).dataDir).toBe('/srv/cds/docs/examples/store');
    expect(loadConfig({ CDS_DATA_DIR: '/data/cds' }, base).dbPath).toBe('/data/cds/cds.duckdb');
  });

  it('finds the project root from its own location: the folder holding the package.json', () => {
    expect(existsSync(join(PROJECT_ROOT, 'package.json'))).toBe(true);
    expect(loadConfig({}, { root: PROJECT_ROOT, cwd: '/tmp' }).dataDir).toBe(join(PROJECT_ROOT, 'var'));
  });

  it('leaves the log format to the terminal test unless CDS_LOG_FORMAT or NODE_ENV=production says', () => {
    expect(loadConfig({}).logFormat).toBeNull();
    expect(loadConfig({ NODE_ENV: 'production' }).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'production', CDS_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ CDS_LOG_FORMAT: 'xml' })).toThrow(/CDS_LOG_FORMAT/);
  });
});
