import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { SsrfBlockedError, WebhookUrlError } from './errors.js';

/** A destination that passed the guard: connect to `address`, never re-resolve the name. */
export interface CheckedDestination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * Every range no webhook may reach unless allow-listed, in one table: the IANA
 * IPv4 and IPv6 Special-Purpose Address Registries' entries that are not
 * globally reachable (private, loopback, link-local and cloud metadata,
 * documentation, benchmarking, ORCHID, SRv6 SIDs, discard and dummy prefixes),
 * plus multicast and the deprecated site-local range. Addresses that carry an
 * IPv4 address (mapped, NAT64, 6to4, Teredo) are also judged as that address.
 */
export const REFUSED_RANGES: ReadonlyArray<{ net: string; prefix: number; family: 'ipv4' | 'ipv6'; name: string }> = [
  ...(
    [
      ['0.0.0.0', 8, 'this network'],
      ['10.0.0.0', 8, 'private use'],
      ['100.64.0.0', 10, 'shared address space (CGNAT)'],
      ['127.0.0.0', 8, 'loopback'],
      ['169.254.0.0', 16, 'link-local (cloud metadata)'],
      ['172.16.0.0', 12, 'private use'],
      ['192.0.0.0', 24, 'IETF protocol assignments'],
      ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
      ['192.88.99.0', 24, 'deprecated 6to4 relay anycast'],
      ['192.168.0.0', 16, 'private use'],
      ['198.18.0.0', 15, 'benchmarking'],
      ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
      ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
      ['224.0.0.0', 4, 'multicast'],
      ['240.0.0.0', 4, 'reserved and limited broadcast'],
    ] as const
  ).map(([net, prefix, name]) => ({ net, prefix, family: 'ipv4' as const, name })),
  ...(
    [
      ['::', 128, 'unspecified'],
      ['::1', 128, 'loopback'],
      ['64:ff9b:1::', 48, 'local-use IPv4/IPv6 translation'],
      ['100::', 64, 'discard-only'],
      ['100:0:0:1::', 64, 'dummy IPv6 prefix'],
      // 2001::/23 (IETF protocol assignments: benchmarking, ORCHID, ORCHIDv2, anycast services) but its first /32, Teredo
      ['2001:1::', 32, 'IETF protocol assignments'],
      ['2001:2::', 31, 'IETF protocol assignments (benchmarking)'],
      ['2001:4::', 30, 'IETF protocol assignments'],
      ['2001:8::', 29, 'IETF protocol assignments'],
      ['2001:10::', 28, 'deprecated ORCHID'],
      ['2001:20::', 27, 'ORCHIDv2 and IETF protocol assignments'],
      ['2001:40::', 26, 'IETF protocol assignments'],
      ['2001:80::', 25, 'IETF protocol assignments'],
      ['2001:100::', 24, 'IETF protocol assignments'],
      ['2001:db8::', 32, 'documentation'],
      ['3fff::', 20, 'documentation'],
      ['5f00::', 16, 'segment routing (SRv6) SIDs'],
      ['fc00::', 7, 'unique-local'],
      ['fe80::', 10, 'link-local'],
      ['fec0::', 10, 'deprecated site-local'],
      ['ff00::', 8, 'multicast'],
    ] as const
  ).map(([net, prefix, name]) => ({ net, prefix, family: 'ipv6' as const, name })),
];

const REFUSED = buildRefused();

function buildRefused(): BlockList {
  const list = new BlockList();
  for (const range of REFUSED_RANGES) list.addSubnet(range.net, range.prefix, range.family);
  return list;
}

/** The refusal, at create, PATCH and delivery alike: it never names the address a host resolved to. */
export const REFUSED_DESTINATION =
  'the destination is not allowed: webhooks may not reach private, loopback, link-local or ' +
  'reserved addresses (for development, list the host in CDS_WEBHOOK_ALLOW_HOSTS)';

/** The eight 16-bit groups of a valid IPv6 address (zone id dropped, a trailing dotted quad folded in). */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const dotted = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
const zeros = (groups: number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);

/**
 * The IPv4 address an IPv6 address carries, judged as that IPv4: IPv4-compatible ::/96,
 * mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16
 * and Teredo 2001::/32 (whose client address is stored inverted). The local-use NAT64
 * prefix 64:ff9b:1::/48 puts the IPv4 at a network-chosen offset, so it is refused whole.
 */
function embeddedV4(address: string): string | null {
  const g = ipv6Groups(address);
  const at = (i: number) => g[i] ?? 0;
  if (zeros(g, 0, 5) && (at(5) === 0 || at(5) === 0xffff)) return dotted(at(6), at(7));
  if (zeros(g, 0, 4) && at(4) === 0xffff && at(5) === 0) return dotted(at(6), at(7));
  if (at(0) === 0x64 && at(1) === 0xff9b && zeros(g, 2, 6)) return dotted(at(6), at(7));
  if (at(0) === 0x2002) return dotted(at(1), at(2));
  if (at(0) === 0x2001 && at(1) === 0) return dotted(at(6) ^ 0xffff, at(7) ^ 0xffff);
  return null;
}

/** True when `address` is private, loopback, link-local, metadata or otherwise not a public destination. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return REFUSED.check(address, 'ipv4');
  const v4 = embeddedV4(address);
  return REFUSED.check(address.replace(/%.*$/, ''), 'ipv6') || (v4 !== null && REFUSED.check(v4, 'ipv4'));
}

/** The allow-list of config (host names, IPs, CIDRs): hosts it names may use plain http and private addresses. */
export class AllowList {
  private readonly names = new Set<string>();
  private readonly addresses = new BlockList();

  constructor(entries: readonly string[]) {
    for (const raw of entries) this.add(raw.trim().toLowerCase());
  }

  private add(entry: string): void {
    const [net, prefix] = entry.split('/');
    const family = isIP(net ?? '');
    if (family === 0) {
      if (entry.length > 0) this.names.add(entry.replace(/^\[|\]$/g, ''));
      return;
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) this.addresses.addAddress(net!, type);
    else this.addresses.addSubnet(net!, Number(prefix), type);
  }

  hasName(hostname: string): boolean {
    return this.names.has(hostname.toLowerCase());
  }

  hasAddress(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.addresses.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** The URL's host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Checks what can be checked without DNS: scheme, credentials, shape. Throws WebhookUrlError. */
export function parseWebhookUrl(raw: string, allow: AllowList): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError('url must be an absolute https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookUrlError('url must use https');
  if (url.username || url.password) throw new WebhookUrlError('url must not contain credentials');
  const host = bareHost(url);
  const listed = allow.hasName(host) || (isIP(host) !== 0 && allow.hasAddress(host));
  if (url.protocol === 'http:' && !listed) {
    throw new WebhookUrlError(
      'url must use https (plain http only for a host listed in CDS_WEBHOOK_ALLOW_HOSTS, for development)',
    );
  }
  if (isIP(host) !== 0 && !listed && isRefusedAddress(host)) {
    throw new SsrfBlockedError(REFUSED_DESTINATION);
  }
  return url;
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * The system resolver with answers kept for `ttlMs`, so a busy receiver does not
 * cost a getaddrinfo per delivery. Safe against rebinding: every delivery still
 * checks the addresses it gets and connects to the one it checked.
 */
export function cachingResolver(ttlMs: number, resolve: Resolver = systemResolver): Resolver {
  const cache = new Map<string, { at: number; addresses: Array<{ address: string; family: number }> }>();
  return async (hostname) => {
    const hit = cache.get(hostname);
    if (hit && Date.now() - hit.at < ttlMs) return hit.addresses;
    const addresses = await resolve(hostname);
    if (cache.size > 10_000) cache.clear();
    cache.set(hostname, { at: Date.now(), addresses });
    return addresses;
  };
}

/**
 * Resolves the URL's host and checks every address it resolves to; answers the one
 * address to connect to. Used at subscription time and again before each delivery,
 * so a name that later points at a private address (DNS rebinding) is refused.
 * An allow-list entry covers the host it names: a listed IP or CIDR admits URLs
 * written with that IP, never a name that happens to resolve into it.
 */
export async function checkDestination(
  raw: string,
  allow: AllowList,
  resolve: Resolver = systemResolver,
): Promise<CheckedDestination> {
  const url = parseWebhookUrl(raw, allow);
  const host = bareHost(url);
  const literal = isIP(host);
  const addresses = literal !== 0 ? [{ address: host, family: literal }] : await resolveOrThrow(host, resolve);
  const listed = allow.hasName(host) || (literal !== 0 && allow.hasAddress(host));
  if (!listed) {
    for (const a of addresses) {
      if (isRefusedAddress(a.address)) {
        throw new SsrfBlockedError(REFUSED_DESTINATION);
      }
    }
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

async function resolveOrThrow(host: string, resolve: Resolver): Promise<Array<{ address: string; family: number }>> {
  try {
    const found = await resolve(host);
    if (found.length === 0) throw new Error('no addresses');
    return found;
  } catch {
    throw new WebhookUrlError(`the host ${host} does not resolve`);
  }
}
