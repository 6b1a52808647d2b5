import { once } from 'node:events';

/** The parts of pg's (untyped) wire connection a COPY … FROM STDIN needs. */
interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
  stream: NodeJS.WritableStream & { writableNeedDrain?: boolean; destroyed?: boolean };
}

/**
 * `COPY … FROM STDIN` as a pg "submittable" (what `pg-copy-streams` does, in a
 * few lines, so no extra dependency): `client.query(copy)` sends the statement;
 * when the server answers CopyInResponse the source is pumped through as
 * CopyData with socket backpressure, then CopyDone. `done` settles with the row
 * count, or with the first error (server ErrorResponse, or the socket dying).
 */
export class CopyFromStdin {
  /** Settles with the rows copied, or the first failure. */
  readonly done: Promise<number>;
  private readonly settle: { resolve: (rows: number) => void; reject: (error: Error) => void };
  /** Rejects on the first failure, so a wait on the socket or on progress ends with it. */
  private readonly failed: Promise<never>;
  private rejectFailed: (error: Error) => void = () => undefined;
  private failure: Error | null = null;
  private sourceError: Error | null = null;
  private rows = 0;

  constructor(
    readonly text: string,
    private readonly source: AsyncIterable<Buffer>,
    private readonly onChunk: (bytes: number) => void | Promise<void> = () => undefined,
  ) {
    let settle: CopyFromStdin['settle'] = { resolve: () => undefined, reject: () => undefined };
    this.done = new Promise<number>((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.settle = settle;
    this.failed = new Promise<never>((_, reject) => {
      this.rejectFailed = reject;
    });
    this.failed.catch(() => undefined);
  }

  submit(connection: CopyConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    void this.pump(connection);
  }

  private async pump(connection: CopyConnection): Promise<void> {
    try {
      for await (const chunk of this.source) {
        if (this.failure) return;
        connection.sendCopyFromChunk(chunk);
        if (connection.stream.writableNeedDrain) await Promise.race([once(connection.stream, 'drain'), this.failed]);
        await Promise.race([this.onChunk(chunk.length), this.failed]);
      }
      if (!this.failure) connection.endCopyFrom();
    } catch (error) {
      const cause = error instanceof Error ? error : new Error(String(error));
      // The server answers CopyFail with an ErrorResponse; `done` then rejects with the source's own error.
      this.sourceError = cause;
      if (!this.failure && !connection.stream.destroyed) connection.sendCopyFail(`source failed: ${cause.message}`);
      else this.handleError(cause);
    }
  }

  handleCommandComplete(msg: { text?: string }): void {
    const match = /^COPY (\d+)/.exec(msg.text ?? '');
    this.rows = match ? Number(match[1]) : 0;
  }

  handleReadyForQuery(): void {
    if (!this.failure) this.settle.resolve(this.rows);
  }

  handleError(error: Error): void {
    if (this.failure) return;
    this.failure = this.sourceError ?? error;
    this.rejectFailed(this.failure);
    this.settle.reject(this.failure);
  }

  // Messages a COPY FROM never gets; pg calls them on any active query.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}
