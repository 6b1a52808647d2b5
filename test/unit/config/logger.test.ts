import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { createLogger, requestLogLevel } from '../../../config/logger.js';
import { prettyLine } from '../../../config/pretty-log.js';
import { accessLogMiddleware } from '../../../server/middleware/access-log.middleware.js';

/** A stream that records lines; `isTTY` as a terminal or a pipe would say. */
function sinkStream(isTTY: boolean): NodeJS.WritableStream & { lines: string[] } {
  const lines: string[] = [];
  return {
    isTTY,
    lines,
    write: (s: string) => {
      lines.push(s);
      return true;
    },
  } as unknown as NodeJS.WritableStream & { lines: string[] };
}

describe('logger format', () => {
  it('writes readable lines on a terminal and JSON to a pipe; CDS_LOG_FORMAT overrides either way', () => {
    const terminal = sinkStream(true);
    createLogger({ logLevel: 'info', logFormat: null }, terminal).info(
      { url: 'http://127.0.0.1:8080', roles: ['server', 'pipelines'] },
      'service started',
    );
    expect(terminal.lines[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}service started url=http:\/\/127\.0\.0\.1:8080 roles=server,pipelines\n$/,
    );

    const pipe = sinkStream(false);
    createLogger({ logLevel: 'info', logFormat: null }, pipe).info('service started');
    expect(JSON.parse(pipe.lines[0] ?? '')).toMatchObject({ level: 30, msg: 'service started', service: 'cds' });

    const forcedJson = sinkStream(true);
    createLogger({ logLevel: 'info', logFormat: 'json' }, forcedJson).info('x');
    expect(forcedJson.lines[0]).toMatch(/^\{/);
    const forcedPretty = sinkStream(false);
    createLogger({ logLevel: 'info', logFormat: 'pretty' }, forcedPretty).info('x');
    expect(forcedPretty.lines[0]).toMatch(/INFO {2}x\n$/);
  });

  it("prints an error's stack indented under the line", () => {
    const error = new Error('boom');
    const line = prettyLine(
      JSON.stringify({
        level: 50,
        time: Date.now(),
        msg: 'export failed',
        export_id: 'exp_1',
        err: { message: 'boom', stack: error.stack },
      }),
    );
    const [head, stack] = line.split('\n');
    expect(head).toMatch(/ERROR export failed export_id=exp_1$/);
    expect(stack).toBe('    Error: boom');
  });

  it('runs beforeWrite before each line (the CLI ends its progress line there)', () => {
    const order: string[] = [];
    const stream = {
      isTTY: false,
      write: (s: string) => {
        order.push(`line ${s.length > 0}`);
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    const logger = createLogger({ logLevel: 'info' }, stream, { beforeWrite: () => order.push('newline') });
    logger.info('a');
    logger.info('b');
    expect(order).toEqual(['newline', 'line true', 'newline', 'line true']);
  });
});

describe('request log lines', () => {
  async function oneRequest(logger: ReturnType<typeof createLogger>): Promise<void> {
    const app = new Koa();
    app.use(accessLogMiddleware(logger));
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/meta`)).text();
    } finally {
      await new Promise((r) => server.close(r));
    }
  }

  it('on a terminal at info there is no line per request; at debug there is', async () => {
    const atInfo = sinkStream(true);
    const infoLogger = createLogger({ logLevel: 'info' }, atInfo);
    expect(requestLogLevel(infoLogger)).toBe('debug');
    await oneRequest(infoLogger);
    expect(atInfo.lines).toEqual([]);
    const atDebug = sinkStream(true);
    await oneRequest(createLogger({ logLevel: 'debug' }, atDebug));
    expect(atDebug.lines.join('')).toMatch(/DEBUG request .*method=GET path=\/v1\/meta .*status=200/);
  });

  it('in JSON logs every request is an info line, as machines collecting logs expect', async () => {
    const pipe = sinkStream(false);
    await oneRequest(createLogger({ logLevel: 'info' }, pipe));
    expect(JSON.parse(pipe.lines[0] ?? '')).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      path: '/v1/meta',
      status: 200,
    });
  });
});
