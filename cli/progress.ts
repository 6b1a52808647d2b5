import type { ProgressUpdate } from '../server/admin/admin-op.js';

/** A one-line progress display; `interrupt` and `end` leave the terminal at the start of a fresh line. */
export interface ProgressPrinter {
  update: (p: ProgressUpdate) => void;
  /** Finishes the progress line so that another line (a log line) starts on its own; the next redraw starts below it. */
  interrupt: () => void;
  end: () => void;
}

/** How often the line is redrawn while a step runs, so that a long step shows time moving. */
const TICK_MS = 1_000;

/**
 * A one-line progress display on a TTY (stderr); silent when not a terminal.
 * While a step runs the line is redrawn every second with the step's own elapsed
 * time, so a step that reports nothing for a while does not look stuck.
 * `now` is for tests (a fake clock).
 */
export function progressPrinter(
  stream: NodeJS.WriteStream = process.stderr,
  now: () => number = Date.now,
): ProgressPrinter {
  const started = now();
  let current: { update: ProgressUpdate; since: number } | null = null;
  let open = false;
  let timer: ReturnType<typeof setInterval> | null = null;
  const draw = (): void => {
    if (!current) return;
    stream.write(`\r\x1b[2K${render(current.update, (now() - started) / 1000, (now() - current.since) / 1000)}`);
    open = true;
  };
  const startTicking = (): void => {
    timer ??= setInterval(draw, TICK_MS);
    timer.unref();
  };
  const stopTicking = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  const interrupt = (): void => {
    if (open) stream.write('\n');
    open = false;
  };
  return {
    update(p) {
      if (!stream.isTTY) return;
      if (current?.update.step !== p.step) current = { update: p, since: now() };
      else current.update = p;
      draw();
      if (p.total !== null && p.done >= p.total) stopTicking();
      else startTicking();
    },
    interrupt,
    end() {
      stopTicking();
      current = null;
      interrupt();
    },
  };
}

/** `42% seeding demo data: posts 3/6 steps  8s in this step, 14.2s in all`. */
export function render(p: ProgressUpdate, totalSecs: number, stepSecs: number): string {
  const total = p.total === null ? '' : `/${p.total.toLocaleString('en-US')}`;
  const rate =
    p.unit && p.unit !== 'steps' && p.unit !== '%' && totalSecs > 0
      ? `  ${Math.round(p.done / totalSecs).toLocaleString('en-US')} ${p.unit}/s`
      : '';
  const pct = p.total ? `${String(Math.floor((p.done / p.total) * 100)).padStart(3)}% ` : '';
  const step = stepSecs >= 1 ? `${Math.floor(stepSecs)}s in this step, ` : '';
  return `${pct}${p.step} ${p.done.toLocaleString('en-US')}${total} ${p.unit ?? ''}${rate}  ${step}${totalSecs.toFixed(1)}s in all`;
}
