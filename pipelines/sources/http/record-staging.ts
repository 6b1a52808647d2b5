import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { privateFile } from '../../../data/private-files.js';
import { quoteIdent, sqlString } from '../../../data/sql.js';
import type { Store } from '../../../data/store.js';
import type { Cell } from './record-mapping.js';

/**
 * Mapped rows of a pull, written as NDJSON while the pages come in, then turned
 * by DuckDB into one Parquet file of exactly the mapped columns, every value as
 * text (the load types and checks them like a CSV's). Parquet because a staged
 * file that names only the mapped columns lets the merge leave the columns a source
 * does not map as they are (an NDJSON record reads every entity column, absent ones
 * as empty), and because it has no quoting for a bio's commas and line breaks to trip.
 */
export class RecordStaging {
  private readonly out: WriteStream;
  private readonly ndjson: string;
  rows = 0;

  constructor(
    readonly file: string,
    private readonly columns: readonly string[],
  ) {
    this.ndjson = `${file}.ndjson`;
    this.out = createWriteStream(this.ndjson, { mode: 0o600 });
  }

  async write(row: readonly Cell[]): Promise<void> {
    this.rows++;
    const line = JSON.stringify(Object.fromEntries(this.columns.map((c, i) => [c, row[i] ?? null])));
    if (!this.out.write(`${line}\n`)) await once(this.out, 'drain');
  }

  async close(): Promise<void> {
    if (this.out.closed) return;
    this.out.end();
    await once(this.out, 'close');
  }

  /** Writes the Parquet file from the rows written (none: an empty file of the columns) and removes the NDJSON. */
  async finish(store: Store): Promise<void> {
    await this.close();
    try {
      const columns = this.columns.map((c) => `${sqlString(c)}: 'VARCHAR'`).join(', ');
      const select =
        this.rows === 0
          ? this.columns.map((c) => `NULL::VARCHAR AS ${quoteIdent(c)}`).join(', ') + ' WHERE false'
          : `* FROM read_json(?, format = 'newline_delimited', columns = {${columns}})`;
      await store.run(
        `COPY (SELECT ${select}) TO ${sqlString(this.file)} (FORMAT parquet)`,
        this.rows === 0 ? [] : [this.ndjson],
      );
      privateFile(this.file); // DuckDB's COPY makes its file with the process umask; the rows may be private (docs/sources.md)
    } finally {
      await rm(this.ndjson, { force: true });
    }
  }

  /** Removes whatever was written (a failed pull). */
  async discard(): Promise<void> {
    await this.close().catch(() => undefined);
    await Promise.all([rm(this.ndjson, { force: true }), rm(this.file, { force: true })]);
  }
}
