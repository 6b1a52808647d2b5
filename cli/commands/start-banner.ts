/** What `cds start` knows once the service is up. */
export interface BannerInput {
  /** The service's URL as this machine reaches it; null when CDS_ROLES leaves out the server. */
  url: string | null;
  /** The interface it listens on (`HOST`). */
  host: string;
  /** This machine's name, for the hint on reaching a server that listens on every interface. */
  hostname: string;
  /** The demo key to print; null with `CDS_DEMO=0` (or a cluster process that did not make one). */
  key: string | null;
  seconds: number;
  roles: readonly string[];
}

/** The command that makes a first API key, printed when there is no demo key. */
export const CREATE_KEY_COMMAND = 'npx cds keys create --account <name> --plan entry';

const WILDCARD_LOOPBACK: Readonly<Record<string, string>> = { '0.0.0.0': '127.0.0.1', '::': '[::1]' };

/**
 * The text `cds start` prints when ready: where it listens, the API reference
 * and the web console, a URL to try and either the demo key with a curl line or
 * the command that creates a key.
 */
export function banner(input: BannerInput): string {
  const took = `started in ${input.seconds.toFixed(1)} s`;
  if (input.url === null) {
    return (
      `\nCreator Data Service is running ${input.roles.join(', ')} (${took}); ` +
      `no HTTP server, as CDS_ROLES leaves out server.\nPress Ctrl+C to stop.\n\n`
    );
  }
  const { url, lines } = where(input.url, input.host, input.hostname, took);
  lines.push(`  API reference: ${url}/docs`, `  Web console: ${url}/console (sign in with an API key)`);
  if (input.key) {
    lines.push(
      `  Demo API key (entry plan): ${input.key}`,
      `  Try:`,
      `    curl -H "Authorization: Bearer ${input.key}" "${url}/v1/creators/search?niche=fitness&country=US&limit=5"`,
    );
  } else {
    lines.push(`  No demo API key (CDS_DEMO=0). Create an API key with:`, `    ${CREATE_KEY_COMMAND}`);
  }
  lines.push(`Press Ctrl+C to stop.`, ``);
  return `${['', ...lines].join('\n')}\n`;
}

/**
 * The first lines: the URL when it listens on one interface; on every interface
 * (`HOST=0.0.0.0` or `::`) the address it listens on, then how this machine and
 * others reach it. Answers the URL the rest of the banner uses.
 */
function where(serviceUrl: string, host: string, hostname: string, took: string): { url: string; lines: string[] } {
  const loopback = WILDCARD_LOOPBACK[host];
  if (!loopback) return { url: serviceUrl, lines: [`Creator Data Service is ready at ${serviceUrl} (${took})`] };
  const parsed = new URL(serviceUrl);
  const local = `${parsed.protocol}//${loopback}:${parsed.port}`;
  const listening = host.includes(':') ? `[${host}]:${parsed.port}` : `${host}:${parsed.port}`;
  return {
    url: local,
    lines: [
      `Creator Data Service is ready, listening on ${listening}, every interface (${took})`,
      `  From this machine: ${local}; from others: ${parsed.protocol}//${hostname}:${parsed.port} (or this machine's IP address)`,
    ],
  };
}
