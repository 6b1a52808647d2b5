import { createServer, type Server } from 'node:http';
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { z } from 'zod';
import { AdminUserError, type AdminContext, type ProgressUpdate } from './admin-op.js';
import { ADMIN_OPS } from './ops/index.js';

/**
 * The local admin channel: HTTP over a Unix socket in the data folder (mode 0600,
 * so only the owning user reaches it). The server process owns the DuckDB file;
 * the CLI sends its admin operations here while a server runs. The reply is
 * NDJSON: `{"progress":…}` lines, then one `{"result":…}` or `{"error":…}` line.
 */
export async function startAdminChannel(socketPath: string, ctx: Omit<AdminContext, 'progress'>): Promise<Server> {
  if (existsSync(socketPath)) unlinkSync(socketPath);
  const server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').replace(/^\/ops\//, ''));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const write = (obj: unknown): void => { res.write(`${JSON.stringify(obj)}\n`); };
      runOp(name, Buffer.concat(chunks).toString('utf8'), { ...ctx, progress: (p: ProgressUpdate) => write({ progress: p }) })
        .then((result) => write({ result }))
        .catch((error: unknown) => write({ error: describe(error) }))
        .finally(() => res.end());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  return server;
}

/** Runs an admin operation by name with raw JSON arguments, in this process. */
export async function runOp(name: string, rawArgs: string, ctx: AdminContext): Promise<unknown> {
  const op = ADMIN_OPS.get(name);
  if (!op) throw new AdminUserError(`unknown admin operation ${name}`);
  let json: unknown;
  try {
    json = rawArgs.trim() === '' ? {} : JSON.parse(rawArgs);
  } catch {
    throw new AdminUserError('arguments are not valid JSON');
  }
  const parsed = op.args.safeParse(json);
  if (!parsed.success) throw new AdminUserError(z.prettifyError(parsed.error));
  return op.run(ctx, parsed.data);
}

export interface AdminErrorBody {
  user: boolean;
  message: string;
}

function describe(error: unknown): AdminErrorBody {
  if (error instanceof AdminUserError) return { user: true, message: error.message };
  return { user: false, message: error instanceof Error ? error.message : String(error) };
}
