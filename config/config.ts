import { availableParallelism, hostname } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

const boolFlag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const commaList = z.string().transform((s) =>
  s
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0),
);

/** How a DuckDB memory limit is written (CDS_DUCKDB_MEMORY_LIMIT): a number, then MB, GB, MiB or GiB. */
const MEMORY_LIMIT = /^(\d+(?:\.\d+)?)\s*(MB|GB|MiB|GiB)$/i;

/** Bytes of a memory limit written as CDS_DUCKDB_MEMORY_LIMIT accepts it (`96MB`, `1.5 GiB`). */
export function memoryLimitBytes(limit: string): number {
  const m = MEMORY_LIMIT.exec(limit.trim());
  if (!m) throw new Error(`not a memory limit: ${limit}`);
  const scale = { MB: 1e6, GB: 1e9, MIB: 2 ** 20, GIB: 2 ** 30 }[(m[2] as string).toUpperCase()] as number;
  return Math.round(Number(m[1]) * scale);
}

/** Environment variables the service reads, with defaults. Nothing else reads `process.env`. */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  CDS_DATA_DIR: z.string().min(1).optional(),
  CDS_DEMO: boolFlag.default(true),
  CDS_DEMO_CREATORS: z.coerce.number().int().min(100).max(5_000_000).default(50_000),
  CDS_DEMO_SEED: z.coerce.number().int().min(0).default(42),
  CDS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CDS_LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  NODE_ENV: z.string().optional(),
  CDS_TLS_CERT: z.string().min(1).optional(),
  CDS_TLS_KEY: z.string().min(1).optional(),
  CDS_BASE_URL: z.url().optional(),
  CDS_CURSOR_SECRET: z.string().min(16).optional(),
  CDS_SECRET_KEY: z.string().min(32, 'at least 32 characters').optional(),
  CDS_BODY_LIMIT: z
    .string()
    .regex(/^\d+(kb|mb)$/i, 'like 1mb or 512kb')
    .default('1mb'),
  CDS_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(30),
  CDS_TRUST_PROXY: boolFlag.default(false),
  // Above the 60 s idle timeout of common load balancers, so the server never closes a connection they are about to reuse.
  CDS_KEEPALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(65_000),
  CDS_METRICS_TOKEN: z
    .string()
    .min(16, 'at least 16 characters')
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII, no spaces')
    .optional(),
  CDS_ROLES: commaList
    .pipe(z.array(z.enum(['server', 'api', 'pipelines', 'writer', 'webhooks', 'exports'])))
    .default(['server', 'pipelines', 'webhooks', 'exports']),
  CDS_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
    .optional(),
  CDS_SHARED_DIR: z.string().min(1).optional(),
  CDS_SNAPSHOT_INTERVAL_SECONDS: z.coerce.number().min(1).max(3600).default(20),
  CDS_INSTANCE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, . _ -')
    .optional(),
  CDS_WEBHOOK_ALLOW_HOSTS: commaList.default([]),
  CDS_WEBHOOK_RETRY_SCHEDULE: commaList
    .pipe(z.array(z.string().regex(/^\d+$/, 'whole seconds').transform(Number)))
    .default(DEFAULT_RETRY_SCHEDULE),
  CDS_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  CDS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  CDS_EXPORT_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(72),
  CDS_EXPORT_MIN_FREE_MB: z.coerce.number().int().min(0).max(1_000_000_000).default(512),
  CDS_EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  CDS_DUCKDB_MEMORY_LIMIT: z.string().regex(MEMORY_LIMIT, 'like 4GB').optional(),
  CDS_DUCKDB_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  CDS_DUCKDB_PRESERVE_INSERTION_ORDER: boolFlag.default(true),
  CDS_SEARCH_INDEX: boolFlag.default(true),
  CDS_SEARCH_INDEX_MMAP: boolFlag.default(true),
  CDS_SYNC_DESTINATIONS: z.string().min(1).optional(),
  CDS_SOURCES: z.string().min(1).optional(),
});

export type Env = Record<string, string | undefined>;

/** What a process can run. `api` is another name for `server`, `writer` for `pipelines`. */
export type Role = 'server' | 'pipelines' | 'webhooks' | 'exports';

/** Cluster mode (CDS_DATABASE_URL set): shared state on PostgreSQL, the analytical store published as snapshots. */
export interface ClusterConfig {
  databaseUrl: string;
  /** Shared by every process: `snapshots/` and `exports/` live here. */
  sharedDir: string;
  snapshotsDir: string;
  /** How often the active writer publishes a snapshot when data changed, and replicas look for a new one. */
  snapshotIntervalMs: number;
  /** This process's name in the cluster (logs, `cluster_members`, snapshot readers). */
  instanceName: string;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  dbPath: string;
  exportsDir: string;
  inboxDir: string;
  adminSocketPath: string;
  demo: boolean;
  demoCreators: number;
  demoSeed: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `null`: readable lines when the log goes to a terminal, JSON otherwise (config/logger.ts decides). */
  logFormat: 'json' | 'pretty' | null;
  tls: { certPath: string; keyPath: string } | null;
  baseUrl: string | null;
  cursorSecret: string | null;
  /** Encrypts webhook signing secrets at rest; `null`: a generated key file (`secret-key`) in the data (cluster: shared) folder. */
  secretKey: string | null;
  bodyLimit: string;
  /** Failed authentications one client address may make per minute (cluster-wide in cluster mode); past it, 429 before any key lookup. */
  authFailuresPerMinute: number;
  /** Behind a reverse proxy: the client address is the first of X-Forwarded-For (else the socket's). */
  trustProxy: boolean;
  /** Idle keep-alive connections close after this; the headers timeout is a second longer (Node's advice). */
  keepAliveTimeoutMs: number;
  /** When set, `/metrics` needs `Authorization: Bearer <token>`; `null` leaves it open. */
  metricsToken: string | null;
  roles: readonly Role[];
  /** `null` in the embedded default (one process, DuckDB only). */
  cluster: ClusterConfig | null;
  webhooks: { allowHosts: readonly string[]; retryScheduleSeconds: readonly number[]; timeoutMs: number };
  retentionDays: number;
  exportTtlHours: number;
  /** A job does not start while the exports folder's file system has less free space than this. */
  exportMinFreeBytes: number;
  /** Export jobs one worker process runs at once. */
  exportConcurrency: number;
  duckdb: { memoryLimit: string | null; threads: number | null; preserveInsertionOrder: boolean };
  /** Answer searches from the in-memory search index when it is current (CDS_SEARCH_INDEX, default on; docs/search.md). */
  searchIndex: boolean;
  /** Map the search index's files instead of reading them into memory (CDS_SEARCH_INDEX_MMAP, default on; docs/search.md). */
  searchIndexMmap: boolean;
  /** The JSON file of warehouse destinations (`cds sync`, scheduled syncs); `null` means none. */
  syncDestinationsPath: string | null;
  /** The JSON or YAML file of configured sources (docs/sources.md); `null` means none. */
  sourcesPath: string | null;
  /**
   * Reads an environment variable a sources file names for a secret (`{"env": "YT_TOKEN"}`). A function, so
   * that the environment is read from this one place and never serialised with the config (logs, JSON).
   */
  secretEnv: (name: string) => string | undefined;
}

/** A configuration value that failed validation; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The folder holding this package's package.json. The default data folder lives
 * here, so `npx cds` from a subfolder finds the same store as `npm start`.
 */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where relative paths are resolved: the project root for defaults, the working folder for values the user gave. */
export interface PathBase {
  root: string;
  cwd: string;
}

/**
 * The data folder: `CDS_DATA_DIR` as given, relative to where the command runs
 * (as any path in an environment variable); unset, `var/` in the project root,
 * wherever the command runs.
 */
export function resolveDataDir(value: string | undefined, base: PathBase): string {
  return value === undefined ? resolve(base.root, 'var') : resolve(base.cwd, value);
}

/** Reads and validates the environment once; the result is frozen. `base` is for tests. */
export function loadConfig(env: Env, base: PathBase = { root: PROJECT_ROOT, cwd: process.cwd() }): Readonly<Config> {
  const parsed = EnvSchema.safeParse(pickKnown(env));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(`invalid ${name}=${JSON.stringify(env[name] ?? '')}: ${issue?.message ?? 'invalid'}`);
  }
  const e = parsed.data;
  if (Boolean(e.CDS_TLS_CERT) !== Boolean(e.CDS_TLS_KEY)) {
    throw new ConfigError('CDS_TLS_CERT and CDS_TLS_KEY must be set together');
  }
  return buildConfig(e, resolveDataDir(e.CDS_DATA_DIR, base), env);
}

function pickKnown(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

function buildConfig(e: z.infer<typeof EnvSchema>, dataDir: string, env: Env): Readonly<Config> {
  const cluster = clusterConfig(e, dataDir);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    dataDir,
    dbPath: resolve(dataDir, 'cds.duckdb'),
    exportsDir: resolve(cluster?.sharedDir ?? dataDir, 'exports'),
    inboxDir: resolve(dataDir, 'inbox'),
    adminSocketPath: resolve(dataDir, 'admin.sock'),
    demo: e.CDS_DEMO,
    demoCreators: e.CDS_DEMO_CREATORS,
    demoSeed: e.CDS_DEMO_SEED,
    logLevel: e.CDS_LOG_LEVEL,
    logFormat: e.CDS_LOG_FORMAT ?? (e.NODE_ENV === 'production' ? 'json' : null),
    tls: e.CDS_TLS_CERT && e.CDS_TLS_KEY ? { certPath: e.CDS_TLS_CERT, keyPath: e.CDS_TLS_KEY } : null,
    baseUrl: e.CDS_BASE_URL ?? null,
    cursorSecret: e.CDS_CURSOR_SECRET ?? null,
    secretKey: e.CDS_SECRET_KEY ?? null,
    bodyLimit: e.CDS_BODY_LIMIT,
    authFailuresPerMinute: e.CDS_AUTH_FAILURES_PER_MINUTE,
    trustProxy: e.CDS_TRUST_PROXY,
    keepAliveTimeoutMs: e.CDS_KEEPALIVE_TIMEOUT_MS,
    metricsToken: e.CDS_METRICS_TOKEN ?? null,
    roles: Object.freeze(canonicalRoles(e.CDS_ROLES)),
    cluster,
    webhooks: Object.freeze({
      allowHosts: Object.freeze([...e.CDS_WEBHOOK_ALLOW_HOSTS]),
      retryScheduleSeconds: Object.freeze([...e.CDS_WEBHOOK_RETRY_SCHEDULE]),
      timeoutMs: e.CDS_WEBHOOK_TIMEOUT_MS,
    }),
    retentionDays: e.CDS_RETENTION_DAYS,
    exportTtlHours: e.CDS_EXPORT_TTL_HOURS,
    exportMinFreeBytes: e.CDS_EXPORT_MIN_FREE_MB * 1024 ** 2,
    // two jobs overlap one's DuckDB scan with the other's file writing; more would only split the cores DuckDB already uses
    exportConcurrency: e.CDS_EXPORT_CONCURRENCY ?? Math.min(2, availableParallelism()),
    duckdb: Object.freeze({
      memoryLimit: e.CDS_DUCKDB_MEMORY_LIMIT ?? null,
      threads: e.CDS_DUCKDB_THREADS ?? null,
      preserveInsertionOrder: e.CDS_DUCKDB_PRESERVE_INSERTION_ORDER,
    }),
    searchIndex: e.CDS_SEARCH_INDEX,
    searchIndexMmap: e.CDS_SEARCH_INDEX_MMAP,
    syncDestinationsPath: e.CDS_SYNC_DESTINATIONS ? resolve(e.CDS_SYNC_DESTINATIONS) : null,
    sourcesPath: e.CDS_SOURCES ? resolve(e.CDS_SOURCES) : null,
    secretEnv: (name: string) => env[name],
  });
}

function canonicalRoles(roles: readonly string[]): Role[] {
  const names: Record<string, Role> = { api: 'server', writer: 'pipelines' };
  return [...new Set(roles.map((r) => names[r] ?? (r as Role)))];
}

function clusterConfig(e: z.infer<typeof EnvSchema>, dataDir: string): ClusterConfig | null {
  if (!e.CDS_DATABASE_URL) return null;
  const sharedDir = resolve(e.CDS_SHARED_DIR ?? resolve(dataDir, 'shared'));
  return Object.freeze({
    databaseUrl: e.CDS_DATABASE_URL,
    sharedDir,
    snapshotsDir: resolve(sharedDir, 'snapshots'),
    snapshotIntervalMs: e.CDS_SNAPSHOT_INTERVAL_SECONDS * 1000,
    instanceName: e.CDS_INSTANCE_NAME ?? `${hostname()}-${process.pid}`,
  });
}

/** A config for tests and tools: defaults, a given data folder, and overrides. */
export function testConfig(dataDir: string, overrides: Env = {}): Readonly<Config> {
  return loadConfig({ CDS_DATA_DIR: dataDir, CDS_DEMO: '0', CDS_LOG_LEVEL: 'silent', PORT: '0', ...overrides });
}
