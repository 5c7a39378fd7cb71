// A request's logger is built on its first line (issue 45): the lines it writes are the lines a
// pino child writes (bindings, redaction, level), and a request that writes nothing builds nothing.
import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createPinoLogger } from '../../../gateway/telemetry/pino-logger.js';
import { lazyChildLogger, logsAt } from '../../../gateway/telemetry/lazy-child-logger.js';

function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

/** Counts the children `parent` builds from now on. */
function countChildren(parent: ReturnType<typeof createPinoLogger>): { count: number } {
  const built = { count: 0 };
  const child = parent.child.bind(parent);
  parent.child = ((...args: Parameters<typeof child>) => {
    built.count += 1;
    return child(...args);
  }) as typeof parent.child;
  return built;
}

describe('lazyChildLogger', () => {
  it('log:lazy-request-child — writes what a pino child writes: bindings, redaction, level', () => {
    const { lines, stream } = capture();
    const parent = createPinoLogger({ level: 'info', destination: stream });
    const lazy = lazyChildLogger(parent, { reqId: 'r-1' }, {});
    lazy.debug('below the level');
    lazy.info({ authorization: 'Bearer secret-token', n: 1 }, 'hello');
    lazy.child({ step: 'two' }).warn('nested');
    expect(lines.map((line) => [line['msg'], line['reqId'], line['step']])).toEqual([
      ['hello', 'r-1', undefined],
      ['nested', 'r-1', 'two'],
    ]);
    expect(lines[0]?.['authorization']).toBe('[redacted]');
    expect(JSON.stringify(lines)).not.toContain('secret-token');
    expect(lazy.level).toBe('info');
    lazy.level = 'debug';
    lazy.debug('now written');
    expect(lines.at(-1)?.['msg']).toBe('now written');
    expect(parent.level).toBe('info');
  });

  it('log:lazy-request-child — a request that logs nothing builds no child; one that logs builds one, bound to its id', async () => {
    const { lines, stream } = capture();
    const parent = createPinoLogger({ level: 'info', destination: stream });
    const built = countChildren(parent);
    const app = Fastify({
      loggerInstance: parent,
      // As the gateway runs: no line per request, so a request that goes well writes nothing.
      logController: new LogController({ disableRequestLogging: true }),
      childLoggerFactory: lazyChildLogger,
      genReqId: () => 'req-7',
    });
    app.get('/quiet', () => 'ok');
    app.get('/loud', (request) => {
      request.log.warn('something to say');
      return 'ok';
    });
    await app.ready();
    const before = built.count;
    await app.inject({ url: '/quiet' });
    await app.inject({ url: '/quiet' });
    expect(built.count - before).toBe(0);
    await app.inject({ url: '/loud' });
    expect(built.count - before).toBe(1);
    expect(lines.filter((line) => line['msg'] === 'something to say').map((line) => line['reqId'])).toEqual([
      'req-7',
    ]);
    await app.close();
  });

  it('log:lazy-request-child — a line below the level builds no child', () => {
    const { lines, stream } = capture();
    const parent = createPinoLogger({ level: 'warn', destination: stream });
    const built = countChildren(parent);
    const lazy = lazyChildLogger(parent, { reqId: 'r-2' }, {});
    lazy.info({ n: 1 }, 'dropped');
    lazy.debug('dropped');
    lazy.silent('dropped');
    expect(built.count).toBe(0);
    lazy.error('kept');
    expect(built.count).toBe(1);
    expect(lines.map((line) => [line['msg'], line['reqId']])).toEqual([['kept', 'r-2']]);
  });

  it('log:lazy-request-child — logsAt answers by the level without building the child, for either logger', () => {
    const { stream } = capture();
    const parent = createPinoLogger({ level: 'warn', destination: stream });
    const built = countChildren(parent);
    const lazy = lazyChildLogger(parent, { reqId: 'r-3' }, {});
    expect([logsAt(lazy, 'info'), logsAt(lazy, 'warn'), logsAt(lazy, 'error')]).toEqual([false, true, true]);
    expect(built.count).toBe(0);
    // A child with its own level says what that level allows.
    const own = lazyChildLogger(parent, { reqId: 'r-4' }, { level: 'debug' });
    expect(logsAt(own, 'debug')).toBe(true);
    expect([logsAt(parent, 'info'), logsAt(parent, 'warn')]).toEqual([false, true]);
  });
});
