const INT = new Intl.NumberFormat('en');
const DEC = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });

/** 12,345 (or – for no value). */
export function int(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : INT.format(n);
}

/** 3.14% (or – for no value). */
export function pct(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : `${DEC.format(n)}%`;
}

/** A decimal with at most two fraction digits. */
export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : DEC.format(n);
}

/** An ISO timestamp as `2025-01-31 14:05 UTC` (the API speaks UTC; so does the console). */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** 1.5 MiB: binary units, so a plan's 1 GiB storage limit reads 1 GiB (not 1.07 GB). */
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${DEC.format(v)} ${units[i]}`;
}

/** YYYY-MM-DD of a Date, in UTC. */
export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}
