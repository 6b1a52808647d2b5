import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSelfSignedCert } from './tls.js';

/** One request the receiver got. */
export interface ReceivedRequest {
  n: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What to answer: a status (default 200), headers, an optional delay, or never answer at all. */
export interface ReceiverReply {
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
  hang?: boolean;
}

export type Responder = (req: ReceivedRequest) => ReceiverReply | undefined;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Changes how later requests are answered. */
  respond(fn: Responder): void;
  /** Resolves once `count` requests (matching `filter`) have arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number, filter?: (r: ReceivedRequest) => boolean): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/**
 * A local webhook receiver on 127.0.0.1 and port 0 that records every request and
 * answers as told. `https: true` serves a throw-away self-signed certificate.
 */
export async function startReceiver(options: { https?: boolean; responder?: Responder } = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let responder: Responder = options.responder ?? (() => undefined);
  const hung: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        n: requests.length + 1,
        path: req.url ?? '/',
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
        ),
      };
      requests.push(received);
      for (const w of waiters.splice(0)) w();
      reply(res, responder(received) ?? {}, hung);
    });
  };
  const server: Server = options.https ? createHttpsServer(selfSigned(), handler) : createHttpServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.https ? 'https' : 'http'}://127.0.0.1:${port}/hook`,
    port,
    requests,
    respond: (fn) => {
      responder = fn;
    },
    waitFor: (count, timeoutMs = 10_000, filter = () => true) => waitFor(requests, waiters, count, timeoutMs, filter),
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function reply(res: ServerResponse, r: ReceiverReply, hung: ServerResponse[]): void {
  if (r.hang) {
    hung.push(res);
    return;
  }
  const send = () => {
    res.writeHead(r.status ?? 200, { 'content-type': 'text/plain', ...r.headers });
    res.end('ok');
  };
  if (r.delayMs) setTimeout(send, r.delayMs);
  else send();
}

function waitFor(
  requests: ReceivedRequest[],
  waiters: Array<() => void>,
  count: number,
  timeoutMs: number,
  filter: (r: ReceivedRequest) => boolean,
): Promise<ReceivedRequest[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`receiver got ${requests.filter(filter).length} of ${count} requests`)),
      timeoutMs,
    );
    const check = () => {
      const got = requests.filter(filter);
      if (got.length >= count) {
        clearTimeout(timer);
        resolve(got);
      } else waiters.push(check);
    };
    check();
  });
}

/** A fresh self-signed certificate for localhost / 127.0.0.1, read back from a temporary folder. */
function selfSigned(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'cds-receiver-'));
  try {
    const { certPath, keyPath } = writeSelfSignedCert(dir);
    return { key: readFileSync(keyPath), cert: readFileSync(certPath) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
