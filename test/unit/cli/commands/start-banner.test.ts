import { describe, expect, it } from 'vitest';
import { banner, CREATE_KEY_COMMAND, type BannerInput } from '../../../../cli/commands/start-banner.js';

const base: BannerInput = {
  url: 'http://127.0.0.1:8080',
  host: '127.0.0.1',
  hostname: 'box',
  key: 'cds_demo',
  seconds: 2.04,
  roles: ['server', 'pipelines'],
};

describe('the cds start banner', () => {
  it('prints the URL, the API reference, the console, the demo key and a curl line to try', () => {
    const text = banner(base);
    expect(text).toContain('Creator Data Service is ready at http://127.0.0.1:8080 (started in 2.0 s)');
    expect(text).toContain(
      'API reference: http://127.0.0.1:8080/docs\n  Web console: http://127.0.0.1:8080/console (sign in with an API key)',
    );
    expect(text).toContain('Demo API key (entry plan): cds_demo');
    expect(text).toContain('curl -H "Authorization: Bearer cds_demo" "http://127.0.0.1:8080/v1/creators/search');
  });

  it('with CDS_DEMO=0 (no key) it prints the command that creates a key', () => {
    const text = banner({ ...base, key: null });
    expect(text).toContain(`Create an API key with:\n    ${CREATE_KEY_COMMAND}`);
    expect(CREATE_KEY_COMMAND).toBe('npx cds keys create --account <name> --plan entry');
    expect(text).not.toContain('Bearer');
    expect(text).toContain('Web console: http://127.0.0.1:8080/console');
  });

  it('with HOST=0.0.0.0 it says it listens on every interface and how to reach it, here and from elsewhere', () => {
    const text = banner({ ...base, host: '0.0.0.0', url: 'http://127.0.0.1:9090' });
    expect(text).toContain('listening on 0.0.0.0:9090, every interface');
    expect(text).toContain('From this machine: http://127.0.0.1:9090; from others: http://box:9090');
    expect(text).not.toContain('ready at http://127.0.0.1');
  });

  it('with HOST=:: it names the IPv6 wildcard and the IPv6 loopback', () => {
    const text = banner({ ...base, host: '::', url: 'https://[::]:8443' });
    expect(text).toContain('listening on [::]:8443, every interface');
    expect(text).toContain('From this machine: https://[::1]:8443');
    expect(text).toContain('API reference: https://[::1]:8443/docs');
    expect(text).toContain('Web console: https://[::1]:8443/console');
  });

  it('a specific address is printed as is', () => {
    expect(banner({ ...base, host: '10.0.0.5', url: 'http://10.0.0.5:8080' })).toContain(
      'ready at http://10.0.0.5:8080',
    );
  });

  it('without the server role it says there is no HTTP server', () => {
    expect(banner({ ...base, url: null })).toContain('running server, pipelines (started in 2.0 s); no HTTP server');
  });
});
