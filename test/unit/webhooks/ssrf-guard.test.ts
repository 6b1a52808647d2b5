import { describe, expect, it } from 'vitest';
import {
  AllowList,
  cachingResolver,
  checkDestination,
  isRefusedAddress,
  parseWebhookUrl,
  SsrfBlockedError,
  WebhookUrlError,
} from '../../../connectors/webhooks/index.js';
import { REFUSED_DESTINATION } from '../../../connectors/webhooks/ssrf-guard.js';

const none = new AllowList([]);
const fakeDns = (map: Record<string, string[]>) => async (host: string) =>
  (map[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '224.0.0.1',
  ])('refuses the private, loopback, link-local or metadata address %s', (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each([
    ['documentation (RFC 9637)', '3fff::1'],
    ['documentation (RFC 9637)', '3fff:fff:ffff::1'],
    ['deprecated ORCHID', '2001:10::1'],
    ['ORCHIDv2', '2001:20::1'],
    ['SRv6 SIDs', '5f00::1'],
    ['benchmarking', '2001:2::1'],
    ['documentation', '2001:db8::1'],
    ['dummy prefix', '100:0:0:1::1'],
    ['IETF protocol assignments', '2001:1ff::1'],
  ])('refuses the special-purpose IPv6 range (%s) address %s', (_name, address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1', '2001:200::1', '3fff:1000::1', '5f01::1'])(
    'accepts the public address %s',
    (address) => {
      expect(isRefusedAddress(address)).toBe(false);
    },
  );

  it.each([
    ['IPv4-compatible', '::127.0.0.1'],
    ['IPv4-compatible', '::a9fe:a9fe'],
    ['IPv4-mapped', '::ffff:10.0.0.1'],
    ['IPv4-translated', '::ffff:0:127.0.0.1'],
    ['IPv4-translated', '::ffff:0:c0a8:101'],
    ['NAT64', '64:ff9b::7f00:1'],
    ['local-use NAT64', '64:ff9b:1::7f00:1'],
    ['local-use NAT64', '64:ff9b:1:abcd::808:808'],
    ['6to4', '2002:7f00:1::'],
    ['6to4', '2002:a9fe:a9fe::1'],
    ['Teredo (client 127.0.0.1)', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['Teredo (client 10.0.0.1)', '2001:0:4136:e378:8000:63bf:f5ff:fffe'],
    ['mapped with a zone id', '::ffff:7f00:1%eth0'],
  ])('refuses the %s form %s, judged as the IPv4 address it carries', (_form, address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each([
    ['IPv4-mapped', '::ffff:8.8.8.8'],
    ['NAT64', '64:ff9b::808:808'],
    ['6to4', '2002:808:808::1'],
    ['Teredo (client 8.8.8.8)', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
  ])('accepts the %s form %s of a public IPv4 address', (_form, address) => {
    expect(isRefusedAddress(address)).toBe(false);
  });

  it.each([
    'https://[::127.0.0.1]/',
    'https://[::ffff:0:127.0.0.1]/',
    'https://[64:ff9b:1::7f00:1]/',
    'https://[2002:7f00:1::]/',
  ])('refuses the IPv6 literal %s that carries a loopback IPv4 address', async (url) => {
    expect(() => parseWebhookUrl(url, none)).toThrow(SsrfBlockedError);
    await expect(checkDestination(url, none, fakeDns({}))).rejects.toThrow(SsrfBlockedError);
  });

  it('the refusal of a name never says what it resolves to, and says how to allow a host for development', async () => {
    const dns = fakeDns({ 'intranet.example': ['10.20.30.40'], 'v6.example': ['2002:a14:1e28::1'] });
    for (const url of ['https://intranet.example/h', 'https://v6.example/h']) {
      const refusal = await checkDestination(url, none, dns).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(refusal).toBeInstanceOf(SsrfBlockedError);
      expect(refusal!.message).toBe(REFUSED_DESTINATION);
      expect(refusal!.message).not.toMatch(/10\.20\.30\.40|2002:|a14/);
      expect(refusal!.message).toMatch(/CDS_WEBHOOK_ALLOW_HOSTS/);
    }
  });

  it('refuses plain http, credentials and private IP literals at subscription time', () => {
    expect(() => parseWebhookUrl('http://example.com/h', none)).toThrow(WebhookUrlError);
    expect(() => parseWebhookUrl('http://example.com/h', none)).toThrow(/CDS_WEBHOOK_ALLOW_HOSTS/);
    expect(() => parseWebhookUrl('https://u:p@example.com/h', none)).toThrow(WebhookUrlError);
    expect(() => parseWebhookUrl('https://10.0.0.8/h', none)).toThrow(SsrfBlockedError);
    expect(() => parseWebhookUrl('https://[::1]/h', none)).toThrow(SsrfBlockedError);
    expect(() => parseWebhookUrl('https://169.254.169.254/latest/meta-data', none)).toThrow(SsrfBlockedError);
    expect(() => parseWebhookUrl('ftp://example.com/h', none)).toThrow(WebhookUrlError);
    // other spellings of loopback that URL parsing normalises
    for (const url of [
      'https://0x7f000001/',
      'https://2130706433/',
      'https://127.1/',
      'https://0/',
      'https://[::ffff:7f00:1]/',
    ]) {
      expect(() => parseWebhookUrl(url, none), url).toThrow(SsrfBlockedError);
    }
    expect(parseWebhookUrl('https://example.com/h', none).hostname).toBe('example.com');
  });

  it('refuses a host name that resolves to a private address, even if only one of its addresses is', async () => {
    const dns = fakeDns({ 'evil.example': ['93.184.216.34', '127.0.0.1'], 'good.example': ['93.184.216.34'] });
    await expect(checkDestination('https://evil.example/h', none, dns)).rejects.toThrow(SsrfBlockedError);
    await expect(checkDestination('https://good.example/h', none, dns)).resolves.toMatchObject({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('allow-listed names, IPs and CIDRs may use http and private addresses', async () => {
    const allow = new AllowList(['127.0.0.1', 'internal.test', '10.0.0.0/8']);
    const dns = fakeDns({ 'internal.test': ['192.168.5.5'], 'other.test': ['192.168.5.6'] });
    await expect(checkDestination('http://127.0.0.1:9000/h', allow, dns)).resolves.toMatchObject({
      address: '127.0.0.1',
    });
    await expect(checkDestination('http://10.9.8.7/h', allow, dns)).resolves.toMatchObject({ address: '10.9.8.7' });
    await expect(checkDestination('http://internal.test/h', allow, dns)).resolves.toMatchObject({
      address: '192.168.5.5',
    });
    await expect(checkDestination('https://other.test/h', allow, dns)).rejects.toThrow(SsrfBlockedError);
    await expect(checkDestination('http://other.test/h', allow, dns)).rejects.toThrow(WebhookUrlError);
  });

  it('a listed IP or CIDR does not admit a name that resolves into it (localhost is not 127.0.0.1)', async () => {
    const allow = new AllowList(['127.0.0.1', '10.0.0.0/8']);
    const dns = fakeDns({ localhost: ['127.0.0.1'], 'svc.test': ['10.2.3.4'] });
    await expect(checkDestination('https://localhost/h', allow, dns)).rejects.toThrow(SsrfBlockedError);
    await expect(checkDestination('https://svc.test/h', allow, dns)).rejects.toThrow(SsrfBlockedError);
  });

  it('a host that does not resolve is refused with a message saying so', async () => {
    await expect(checkDestination('https://nowhere.test/h', none, fakeDns({}))).rejects.toThrow(/does not resolve/);
  });

  it('the caching resolver reuses an answer within its TTL, and each use is still checked', async () => {
    let calls = 0;
    let answer = '93.184.216.34';
    const resolve = cachingResolver(60_000, async () => {
      calls++;
      return [{ address: answer, family: 4 }];
    });
    await checkDestination('https://a.example/h', none, resolve);
    await checkDestination('https://a.example/h', none, resolve);
    expect(calls).toBe(1);
    answer = '10.0.0.1';
    const fresh = cachingResolver(0, async () => {
      calls++;
      return [{ address: answer, family: 4 }];
    });
    await expect(checkDestination('https://a.example/h', none, fresh)).rejects.toThrow(SsrfBlockedError);
  });
});
