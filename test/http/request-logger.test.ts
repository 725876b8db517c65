// Each request's logger is made only when something logs through it (src/http/request-logger.ts): a line
// logged through request.log must still carry the request's id, as pino's child would have written it.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { LazyRequestLogger } from '../../src/http/request-logger.js';
import { injectApp } from '../helpers/app.js';

describe('request loggers', () => {
  it("a request's log line carries its request id, session and tool", async () => {
    const lines: string[] = [];
    const t = await injectApp(
      { TOOLGATE_SANDBOX: 'none', LOG_LEVEL: 'info' },
      { logger: true, logStream: { write: (line) => lines.push(line) } },
    );
    const session = await t.createSession({ files: { 'a.txt': 'a\n' } });
    const res = await t.call(session, 'read_file', { path: 'a.txt' }).set('x-request-id', 'req-lazy-1');
    await t.close();
    expect(res.status).toBe(200);
    const logged = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'request' && entry.reqId === 'req-lazy-1');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ sessionId: session.id, tool: 'read_file', status: 200, level: 30 });
  });

  it('makes the child on first use only, with its bindings and level', () => {
    const lines: string[] = [];
    const parent = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    let made = 0;
    const child = parent.child.bind(parent);
    parent.child = ((...args: Parameters<typeof child>) => {
      made++;
      return child(...args);
    }) as typeof parent.child;
    const logger = new LazyRequestLogger(parent, { reqId: 'r1' }, {});
    expect(logger.level).toBe('info');
    expect(made).toBe(0);
    logger.debug('below the level');
    expect(made).toBe(1);
    expect(lines).toHaveLength(0);
    logger.warn({ n: 1 }, 'kept');
    expect(made).toBe(1);
    expect(JSON.parse(lines[0])).toMatchObject({ reqId: 'r1', n: 1, msg: 'kept', level: 40 });
    expect(new LazyRequestLogger(parent, { reqId: 'r2' }, { level: 'warn' }).level).toBe('warn');
    expect(made).toBe(1);
  });
});
