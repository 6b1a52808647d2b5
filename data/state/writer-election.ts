import pg from 'pg';
import { backoffDelay } from './backoff.js';

/** Every writer agrees on this advisory lock key; holding it makes a process the active writer. */
const WRITER_LOCK = 7_202_612;

export interface ElectionOptions {
  /** This process's name, shown in `pg_stat_activity` on the lock's connection (who is the active writer). */
  name?: string;
  /** How often a standby asks for the lock. */
  pollMs?: number;
  /** Called when this process becomes the active writer. */
  onElected: () => Promise<void>;
  /**
   * Called when this process loses the lock's session (PostgreSQL restarted or
   * the connection broke): another writer may already be active, so the caller
   * must stop writing at once (the service exits and its supervisor restarts it).
   */
  onLost: (error: Error) => void;
  /** Called with each failed attempt and how many failed in a row (the standby backs off meanwhile, up to 5 s). */
  onError?: (error: unknown, failures: number) => void;
}

/**
 * Exactly one active writer, elected through a PostgreSQL session advisory lock
 * on a connection of its own. A standby polls `pg_try_advisory_lock`; when the
 * active writer dies, PostgreSQL ends its session, the lock is free, and the
 * next poll (within `pollMs`) takes over.
 */
export class WriterElection {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private elected = false;
  private failures = 0;
  private attemptCount = 0;

  constructor(
    private readonly url: string,
    private readonly options: ElectionOptions,
  ) {}

  get isActive(): boolean {
    return this.elected;
  }

  /** How many times it has asked for the lock (a standby asks every `pollMs`). */
  get attempts(): number {
    return this.attemptCount;
  }

  /** Starts campaigning; resolves once the first attempt was made. */
  async start(): Promise<void> {
    await this.attempt();
    if (!this.elected && !this.stopped) this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(
      () => {
        void this.attempt().finally(() => {
          if (!this.elected && !this.stopped) this.schedule();
        });
      },
      backoffDelay(this.failures, this.options.pollMs ?? 1_000),
    );
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    this.attemptCount++;
    try {
      const client = this.client ?? (await this.connect());
      const row = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [WRITER_LOCK])).rows[0];
      this.failures = 0;
      if (!row?.ok || this.stopped) return;
      this.elected = true;
      this.watch(client);
      await this.options.onElected();
    } catch (error) {
      this.failures += 1;
      this.options.onError?.(error, this.failures);
      if (!this.elected) await this.dropClient();
    }
  }

  /** While elected, a cheap query every 2 s: a lock session that went silent is a lost lock. */
  private watch(client: pg.Client): void {
    const beat = setInterval(() => {
      if (this.stopped || !this.elected) return clearInterval(beat);
      const timeout = setTimeout(
        () => this.lose(beat, new Error('the writer lock connection stopped answering')),
        5_000,
      );
      client.query('SELECT 1').then(
        () => clearTimeout(timeout),
        (error: Error) => {
          clearTimeout(timeout);
          this.lose(beat, error);
        },
      );
    }, 2_000);
    beat.unref();
  }

  private lose(beat: NodeJS.Timeout, error: Error): void {
    clearInterval(beat);
    this.markLost(error);
  }

  /** Reports a lost lock once, however many ways (error, end, silence) the session showed it. */
  private markLost(error: Error): void {
    if (!this.elected || this.stopped) return;
    this.elected = false;
    this.options.onLost(error);
  }

  private async connect(): Promise<pg.Client> {
    // a paused server accepts the TCP connection and then answers nothing: bound the wait
    const client = new pg.Client({
      connectionString: this.url,
      application_name: `cds writer ${this.options.name ?? process.pid}`.slice(0, 63),
      keepAlive: true,
      connectionTimeoutMillis: 2_000,
      query_timeout: 5_000,
    });
    client.on('error', (error) => this.markLost(error));
    client.on('end', () => this.markLost(new Error('the writer lock connection to PostgreSQL ended')));
    await client.connect();
    this.client = client;
    return client;
  }

  private async dropClient(): Promise<void> {
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  /** Stops campaigning and gives the lock up (by ending its session). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.elected = false;
    await this.dropClient();
  }
}
