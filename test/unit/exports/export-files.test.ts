import { describe, expect, it } from 'vitest';
import { exportFileName, exportFilePath, exportTempPath, isExportId } from '../../../connectors/exports/export-files.js';
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

  it('ids that try to leave the folder or name another file are refused as not found', () => {
    const attempts = ['../cds.duckdb', '..', 'exp_../../etc/passwd', '/etc/passwd', 'exp_0123456789abcdefghijk/../x',
      'exp_0123456789abcdefghij.', 'exp_0123456789ABCDEFGHIJK', 'exp_0123456789abcdefghijk\u0000', 'lst_0123456789abcdefghijk', ''];
    for (const id of attempts) {
      expect(isExportId(id)).toBe(false);
      expect(() => exportFilePath(dir, id, 'csv')).toThrow(/no export/);
      expect(() => exportFileName(id, 'csv')).toThrow(/no export/);
    }
  });
});
