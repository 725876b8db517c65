// Terminals end to end through the tools, on the session's real runtime: a REPL driven by write_stdin,
// Ctrl-C, a prompt answered, a full-screen program's screen, resize, the per-session limit, close.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { toolContext, type ToolHarness, type ToolSession } from '../../helpers/tool-context.js';

/** Polls a terminal until `done(output so far)` or the deadline; returns everything read. */
async function readUntil(s: ToolSession, id: string, done: (text: string) => boolean, ms = 15_000) {
  let text = '';
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const state = await s.run('write_stdin', { session_id: id, chars: '', yield_time_ms: 200 });
    text += state.output;
    if (done(text) || !state.running) return { text, state };
  }
  return { text, state: undefined };
}

describe('terminals (exec_command, write_stdin)', () => {
  let h: ToolHarness;
  let s: ToolSession;
  beforeAll(async () => {
    h = await toolContext();
    s = await h.session({ profile: 'execute' });
  });
  afterAll(() => h.close());

  it('drives a python3 REPL: state kept between inputs, output returned, Ctrl-D ends it', async () => {
    const started = await s.run('exec_command', { cmd: 'python3 -q', yield_time_ms: 500 });
    expect(started.running).toBe(true);
    const id = started.terminalId;
    await readUntil(s, id, (t) => (started.output + t).includes('>>>'));
    await s.run('write_stdin', { session_id: id, chars: 'x = 6 * 7\n', yield_time_ms: 100 });
    const printed = await s.run('write_stdin', {
      session_id: id,
      chars: 'print(x + 1)\n',
      yield_time_ms: 300,
    });
    const { text } = await readUntil(s, id, (t) => (printed.output + t).includes('43'));
    expect(printed.output + text).toMatch(/^43$/m);
    const ended = await s.run('write_stdin', { session_id: id, keys: ['ctrl-d'], yield_time_ms: 3000 });
    expect(ended).toMatchObject({ running: false, exitCode: 0 });
    const listed = await s.run('terminal_list');
    expect(listed.terminals.map((t: { terminalId: string }) => t.terminalId)).not.toContain(id);
  });

  it('Ctrl-C stops sleep 100 and the terminal reports the interrupt', async () => {
    const started = await s.run('exec_command', { cmd: 'sleep 100', yield_time_ms: 300 });
    expect(started.running).toBe(true);
    const stopped = await s.run('write_stdin', {
      session_id: started.terminalId,
      chars: '\u0003',
      yield_time_ms: 5000,
    });
    expect(stopped.running).toBe(false);
    expect(stopped.exitCode).toBe(130);
  });

  it('answers a read -p prompt', async () => {
    const started = await s.run('exec_command', {
      cmd: 'read -p "Proceed? [y/n] " answer; echo "got:$answer"',
      yield_time_ms: 500,
    });
    const prompt = await readUntil(s, started.terminalId, (t) => (started.output + t).includes('Proceed?'));
    expect(started.output + prompt.text).toContain('Proceed? [y/n] ');
    const answered = await s.run('write_stdin', {
      session_id: started.terminalId,
      chars: 'y\n',
      yield_time_ms: 3000,
    });
    expect(answered.output).toContain('got:y');
    expect(answered.running).toBe(false);
  });

  it("renders a full-screen program's screen, and resize reaches the program", async () => {
    // A tput program on the alternate screen: clears, draws at fixed places, then reports its size on SIGWINCH.
    const script =
      "tput smcup; tput clear; tput cup 2 10; printf 'TOP LEFT'; tput cup 5 30; printf 'size %s' \"$(tput lines)x$(tput cols)\"; " +
      'trap \'tput cup 7 0; printf "resized %sx%s" "$(tput lines)" "$(tput cols)"\' WINCH; ' +
      'while :; do sleep 0.1; done';
    const started = await s.run('exec_command', {
      cmd: script,
      rows: 12,
      cols: 60,
      yield_time_ms: 1500,
      screen: true,
    });
    const id = started.terminalId;
    const drawn = await readUntil(s, id, (t) => (started.output + t).includes('size'));
    expect(drawn.text + started.output).toContain('size 12x60');
    const screen = (await s.run('write_stdin', { session_id: id, yield_time_ms: 100, screen: true }))
      .screen as string[];
    expect(screen[2]).toBe(`${' '.repeat(10)}TOP LEFT`);
    expect(screen[5]).toBe(`${' '.repeat(30)}size 12x60`);
    expect(screen).toHaveLength(6);

    await s.run('terminal_resize', { session_id: id, rows: 20, cols: 100 });
    const resized = await readUntil(s, id, (t) => t.includes('resized'));
    expect(resized.text).toContain('resized 20x100');
    const closed = await s.run('terminal_close', { session_id: id });
    expect(closed.terminalId).toBe(id);
    const gone = await s.attempt('write_stdin', { session_id: id });
    expect(gone.error.code).toBe('NOT_FOUND');
  });

  it('holds a session to its terminal limit and says how to free one', async () => {
    const file = path.join(tempDir('toolgate-terminals-'), 'config.json');
    writeFileSync(file, JSON.stringify({ terminals: { maxPerSession: 1 } }));
    const limited = await toolContext({ TOOLGATE_CONFIG: file });
    try {
      const one = await limited.session({ profile: 'execute' });
      await one.run('exec_command', { cmd: 'sleep 50', yield_time_ms: 0 });
      const second = await one.attempt('exec_command', { cmd: 'sleep 50', yield_time_ms: 0 });
      expect(second.error).toMatchObject({ code: 'TOO_MANY_TERMINALS', statusCode: 429 });
    } finally {
      await limited.close();
    }
  });
});
