// Keeps one cluster process running the way systemd's `Restart=always` or a
// Kubernetes restart policy would (deploy/ ships those for real deployments):
// a process that exits when nobody asked it to is started again, after a delay
// that doubles with each quick crash, and every restart is logged.
import { spawnProcess, type ClusterEnv, type ClusterProcess, type ProcessSpec } from '../test/helpers/cluster-kit.js';

export interface SupervisorOptions {
  /** The first restart's delay (default 1 s); it doubles with each crash in a row, up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** A process that ran this long before exiting starts the doubling over (default 60 s). */
  healthyAfterMs?: number;
  /** One line per event: exits, restarts, failed starts. */
  say: (line: string) => void;
}

export interface Supervised {
  readonly name: string;
  readonly roles: string;
  /** The running process (a new one after each restart). */
  readonly current: ClusterProcess;
  /** How many times it was restarted. */
  readonly restarts: number;
  /** Stops supervising and stops the process (SIGTERM, then SIGKILL after 30 s). */
  stop(): Promise<number | null>;
}

/** The delay before restart `n` (1-based) of a process that keeps crashing. */
export function restartDelay(n: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.max(0, n - 1));
}

/** Starts `spec` (resolving once it started, as `spawnProcess` does) and restarts it whenever it exits unasked. */
export async function supervise(
  cluster: ClusterEnv,
  spec: ProcessSpec,
  options: SupervisorOptions,
): Promise<Supervised> {
  const first = options.firstDelayMs ?? 1_000;
  const max = options.maxDelayMs ?? 30_000;
  const started = { ...spec, waitStarted: true };
  let current = await spawnProcess(cluster, started);
  let startedAt = Date.now();
  let restarts = 0;
  let crashesInARow = 0;
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;

  const restart = async (): Promise<void> => {
    timer = null;
    if (stopping) return;
    try {
      current = await spawnProcess(cluster, started);
      startedAt = Date.now();
      restarts += 1;
      watch(current);
      options.say(`[supervisor] ${spec.name} restarted (restart ${restarts})`);
    } catch (error) {
      onExit((error as Error).message);
    }
  };
  const onExit = (how: string): void => {
    if (stopping) return;
    crashesInARow = Date.now() - startedAt >= (options.healthyAfterMs ?? 60_000) ? 1 : crashesInARow + 1;
    const delay = restartDelay(crashesInARow, first, max);
    options.say(`[supervisor] ${spec.name} ${how}; restarting in ${(delay / 1000).toFixed(1)} s`);
    timer = setTimeout(() => void restart(), delay);
  };
  const watch = (p: ClusterProcess): void => {
    p.child.once('exit', (code, signal) => onExit(`exited (${signal ? `signal ${signal}` : `status ${code}`})`));
  };
  watch(current);

  return {
    name: spec.name,
    roles: spec.roles,
    get current() {
      return current;
    },
    get restarts() {
      return restarts;
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      return current.stop();
    },
  };
}
