import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { normaliseHandle } from '../creators/creator-profile.service.js';
import { ValidationError } from '../errors.js';

/** One labelled creator of a `--labels` CSV: fraud 1, legitimate 0, and the case it stands for. */
export interface LabelRow {
  platform: string;
  handle: string;
  label: 0 | 1;
  pattern: string | null;
}

/** The labels CSV header (platform, handle, label 0/1, optional pattern). */
export const LABELS_HEADER = 'platform,handle,label,pattern';

/**
 * Parses a labels CSV: columns platform, handle, label (0/1; also `authentic`
 * = 0 and any other word = 1, the format eval:verify read before) and an
 * optional pattern. A bad row is a ValidationError naming its line.
 */
export function parseLabelsCsv(text: string | Buffer): LabelRow[] {
  const records = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Array<
    Record<string, string>
  >;
  return records.map((r, i) => {
    const handle = normaliseHandle(r['handle'] ?? '');
    const raw = (r['label'] ?? '').toLowerCase();
    if (!handle || !r['platform'] || raw === '') {
      throw ValidationError.field('labels', `line ${i + 2}: needs platform, handle and label (0 or 1)`);
    }
    const label = raw === '0' || raw === 'authentic' ? 0 : 1;
    const pattern = (r['pattern'] ?? '').trim() || (raw !== '0' && raw !== '1' ? raw : null);
    return { platform: r['platform'].toLowerCase(), handle, label, pattern };
  });
}

/** Labels as CSV text, the format `--labels` reads. */
export function labelsToCsv(rows: readonly LabelRow[]): string {
  const cell = (v: string): string => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  return (
    [
      LABELS_HEADER,
      ...rows.map((r) => [r.platform, r.handle, String(r.label), r.pattern ?? ''].map(cell).join(',')),
    ].join('\n') + '\n'
  );
}

/** SHA-256 of the labels in a canonical order: the same set, whatever its row order, has the same hash. */
export function labelsSha256(rows: readonly LabelRow[]): string {
  const lines = rows.map((r) => `${r.platform}\t${r.handle}\t${r.label}\t${r.pattern ?? ''}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}
