import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import type { z } from 'zod';
import { AdminArgsError, AdminUserError, type AdminContext, type ProgressUpdate } from './admin-op.js';
import { ADMIN_OPS } from './ops/index.js';

/**
 * The local admin channel: HTTP over a Unix socket in the data folder (mode 0600,
 * so only the owning user reaches it). The server process owns the DuckDB file;
 * the CLI sends its admin operations here while a server runs. The reply is
 * NDJSON: `{"progress":…}` lines, then one `{"result":…}` or `{"error":…}` line.
 */
export async function startAdminChannel(socketPath: string, ctx: Omit<AdminContext, 'progress'>): Promise<Server> {
  if (existsSync(socketPath)) unlinkSync(socketPath);
  // Nothing a client sends may take the server down: every failure becomes an answer.
  const server = createServer((req, res) => {
    // A CLI that hangs up mid-answer (Ctrl+C during a seed) leaves nobody to tell; the operation still finishes.
    res.on('error', () => undefined);
    handle(req, res, ctx).catch((error: unknown) => answerFailure(res, error));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  return server;
}

/** Answers may carry a new API key (`keys.create`): nothing on the way may keep them. */
const NDJSON = { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' };

async function handle(req: IncomingMessage, res: ServerResponse, ctx: Omit<AdminContext, 'progress'>): Promise<void> {
  const name = opName(req.url ?? '/');
  const body = await readBody(req);
  if (name === null) {
    res.writeHead(400, NDJSON);
    res.end(`${JSON.stringify({ error: { user: true, message: 'the request path is not a valid /ops/<name>' } })}\n`);
    return;
  }
  res.writeHead(200, NDJSON);
  const write = (obj: unknown): void => {
    res.write(`${JSON.stringify(obj)}\n`);
  };
  await runOp(name, body, { ...ctx, progress: (p: ProgressUpdate) => write({ progress: p }) }).then(
    (result) => write({ result }),
    (error: unknown) => write({ error: describe(error) }),
  );
  res.end();
}

/** The operation name in `/ops/<name>`; null when the path is not percent-decodable. */
function opName(url: string): string | null {
  try {
    return decodeURIComponent(url.replace(/^\/ops\//, ''));
  } catch {
    return null;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/** The last resort: an error line if the answer has begun, a 500 otherwise; never a throw. */
function answerFailure(res: ServerResponse, error: unknown): void {
  try {
    if (!res.headersSent) res.writeHead(500, NDJSON);
    res.end(`${JSON.stringify({ error: describe(error) })}\n`);
  } catch {
    res.destroy();
  }
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
  if (!parsed.success) throw new AdminArgsError(argumentIssues(parsed.error));
  return op.run(ctx, parsed.data);
}

/** One line naming each refused argument (`status: Invalid option: expected one of …`), for a terminal. */
function argumentIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ');
}

export interface AdminErrorBody {
  user: boolean;
  /** The arguments were refused (`AdminArgsError`): a usage mistake. */
  usage?: boolean;
  message: string;
}

function describe(error: unknown): AdminErrorBody {
  if (error instanceof AdminArgsError) return { user: true, usage: true, message: error.message };
  if (error instanceof AdminUserError) return { user: true, message: error.message };
  return { user: false, message: error instanceof Error ? error.message : String(error) };
}
