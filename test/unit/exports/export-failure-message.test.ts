import { describe, expect, it } from 'vitest';
import { publicMessage } from '../../../connectors/exports/export.worker.js';

describe('what a failed export tells the API user', () => {
  it('names DuckDB running out of its memory limit, and what would make the export fit', () => {
    const message = publicMessage(
      new Error('Out of Memory Error: failed to pin block of size 256.0 KiB (122.0 MiB/122.0 MiB used)'),
    );
    expect(message).toMatch(/more memory than the server allows/);
    expect(message).toMatch(/fewer rows or fields/);
    expect(message).not.toMatch(/MiB|pin block/);
  });

  it('says a full disk in words, and never shows an internal error text', () => {
    expect(publicMessage(new Error('IO Error: No space left on device'))).toMatch(/ran out of disk space/);
    const internal = publicMessage(new Error('Binder Error: column "secret_col" not found'));
    expect(internal).toMatch(/internal error/);
    expect(internal).not.toMatch(/secret_col|Binder/);
  });
});
