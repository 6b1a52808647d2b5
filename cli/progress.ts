import type { ProgressUpdate } from '../server/admin/admin-op.js';

/** A one-line progress display on a TTY (stderr); silent when not a terminal. */
export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): { update: (p: ProgressUpdate) => void; end: () => void } {
  const started = Date.now();
  let shown = false;
  return {
    update(p) {
      if (!stream.isTTY) return;
      const secs = (Date.now() - started) / 1000;
      const total = p.total === null ? '' : `/${p.total}`;
      const rate = p.unit && p.unit !== 'steps' && secs > 0 ? `  ${Math.round(p.done / secs).toLocaleString('en-US')} ${p.unit}/s` : '';
      const pct = p.total ? `${String(Math.floor((p.done / p.total) * 100)).padStart(3)}% ` : '';
      stream.write(`\r\x1b[2K${pct}${p.step} ${p.done.toLocaleString('en-US')}${total} ${p.unit ?? ''}${rate}  ${secs.toFixed(1)}s`);
      shown = true;
    },
    end() {
      if (shown) stream.write('\n');
    },
  };
}
