import { describe, expect, it } from 'vitest';
import {
  exportFileName,
  exportFilePath,
  exportTempPath,
  isExportId,
  tempFileAttempt,
} from '../../../connectors/exports/export-files.js';
import { newId } from '../../../data/ids.js';

describe('export file paths', () => {
  const dir = '/srv/cds/exports';

  it('a new export id is accepted and maps to a file inside the folder, named from the id', () => {
    const id = newId('exp');
    expect(isExportId(id)).toBe(true);
    expect(exportFilePath(dir, id, 'parquet')).toBe(`${dir}/${id}.parquet`);
    expect(exportFilePath(dir, id, 'arrow')).toBe(`${dir}/${id}.arrows`);
    expect(exportTempPath(dir, id, 'csv')).toBe(`${dir}/${id}.csv.part`);
  });

  it('each attempt at a job writes a temp file of its own, and the file names the attempt', () => {
    const id = newId('exp');
    const path = exportTempPath(dir, id, 'arrow', 'k3x9a0');
    expect(path).toBe(`${dir}/${id}.arrows.k3x9a0.part`);
    expect(tempFileAttempt(path.slice(dir.length + 1))).toBe('k3x9a0');
    expect(tempFileAttempt(`${id}.csv.part`)).toBeNull();
    expect(() => exportTempPath(dir, id, 'csv', '../x')).toThrow();
  });

  it('ids that try to leave the folder or name another file are refused as not found', () => {
    const attempts = [
      '../cds.duckdb',
      '..',
      'exp_../../etc/passwd',
      '/etc/passwd',
      'exp_0123456789abcdefghijk/../x',
      'exp_0123456789abcdefghij.',
      'exp_0123456789ABCDEFGHIJK',
      'exp_0123456789abcdefghijk\u0000',
      'lst_0123456789abcdefghijk',
      '',
    ];
    for (const id of attempts) {
      expect(isExportId(id)).toBe(false);
      expect(() => exportFilePath(dir, id, 'csv')).toThrow(/no export/);
      expect(() => exportFileName(id, 'csv')).toThrow(/no export/);
    }
  });
});
