/** pino's numeric levels as the words a reader expects. */
const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields every line has, shown in the line's head or not at all. */
const HEAD_FIELDS = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

/**
 * One pino JSON line as a line a person reads: `12:04:05.120 INFO  message key=value …`,
 * with an error's stack indented below. A line that is not JSON passes unchanged.
 */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof entry['time'] === 'number' ? clock(new Date(entry['time'])) : '';
  const level = (LEVELS[Number(entry['level'])] ?? String(entry['level'])).padEnd(5);
  const fields = Object.entries(entry).filter(([k]) => !HEAD_FIELDS.has(k) && k !== 'err');
  const tail = fields.map(([k, v]) => `${k}=${value(v)}`).join(' ');
  const head = [time, level, String(entry['msg'] ?? ''), tail].filter((part) => part.length > 0).join(' ');
  return `${head}${stack(entry['err'])}\n`;
}

/** Local wall-clock time with milliseconds: a person at a terminal reads their own clock. */
function clock(d: Date): string {
  return `${d.toTimeString().slice(0, 8)}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) return v.join(',');
  return JSON.stringify(v) ?? String(v);
}

function stack(err: unknown): string {
  if (!err || typeof err !== 'object') return '';
  const e = err as { stack?: unknown; message?: unknown };
  const text = typeof e.stack === 'string' ? e.stack : String(e.message ?? JSON.stringify(err));
  return `\n${text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}`;
}
