import { request } from 'node:http';
import type { AdminErrorBody } from '../server/admin/admin-channel.js';
import type { ProgressUpdate } from '../server/admin/admin-op.js';

export type AdminReply = { reached: false } | { reached: true; result?: unknown; error?: AdminErrorBody };

/**
 * Sends an admin operation to a running server over its Unix socket. Answers
 * `{reached: false}` when no server listens there, so the caller can open the
 * store itself. `onReached` runs once the server answers, before any progress.
 */
export function callAdmin(
  socketPath: string,
  op: string,
  args: unknown,
  onProgress: (p: ProgressUpdate) => void,
  onReached: () => void = () => undefined,
): Promise<AdminReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path: `/ops/${encodeURIComponent(op)}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        onReached();
        let buffer = '';
        let reply: AdminReply = {
          reached: true,
          error: { user: false, message: 'the server closed the admin channel without an answer' },
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = JSON.parse(buffer.slice(0, nl)) as {
              progress?: ProgressUpdate;
              result?: unknown;
              error?: AdminErrorBody;
            };
            buffer = buffer.slice(nl + 1);
            if (line.progress) onProgress(line.progress);
            else reply = { reached: true, result: line.result, error: line.error };
          }
        });
        res.on('end', () => resolve(reply));
        res.on('error', reject);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve({ reached: false });
      else reject(error);
    });
    req.end(JSON.stringify(args));
  });
}
