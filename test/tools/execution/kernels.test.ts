// Code kernels end to end through run_code and the kernel tools, on the session's real runtime: state kept
// across cells, a matplotlib PNG saved and returned, an exception's traceback, a busy loop interrupted
// (by its timeout and by kernel_interrupt), restart losing state. Needs python3 with ipykernel and
// jupyter_client where the runtime runs (the python image; on bwrap, the host's Debian packages).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext, type ToolHarness, type ToolSession } from '../../helpers/tool-context.js';
import { kernelHostMissing } from '../../helpers/kernel.js';

const hostHasKernel = !kernelHostMissing('kernel tests');

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe.skipIf(!hostHasKernel)('code kernels (run_code)', () => {
  let h: ToolHarness;
  let s: ToolSession;
  beforeAll(async () => {
    h = await toolContext();
    s = await h.session({ profile: 'execute' });
  }, 120_000);
  afterAll(() => h.close());

  it('keeps a variable across cells and returns the last value', async () => {
    const first = await s.run('run_code', { code: 'x = 41\nprint("set")' });
    expect(first.status).toBe('ok');
    expect(first.startedMs).toBeGreaterThan(0);
    expect(first.outputs).toEqual([{ type: 'stream', name: 'stdout', text: 'set\n' }]);
    const second = await s.run('run_code', { code: 'x + 1' });
    expect(second).toMatchObject({ status: 'ok', executionCount: 2 });
    expect(second.startedMs).toBeUndefined();
    expect(second.outputs).toMatchObject([{ type: 'result', text: '42' }]);
  }, 120_000);

  it('returns a matplotlib chart as a PNG saved in the workspace', async () => {
    const drawn = await s.run('run_code', {
      code: 'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.title("squares")\nplt.show()',
    });
    expect(drawn.status).toBe('ok');
    expect(drawn.images).toHaveLength(1);
    const [image] = drawn.images;
    expect(image.mimeType).toBe('image/png');
    expect(image.path).toMatch(/^\.kernel-outputs\/default\/\d+-1\.png$/);
    const saved = readFileSync(path.join(s.dir, image.path));
    expect(saved.subarray(0, 4)).toEqual(PNG_MAGIC);
    expect(Buffer.from(image.base64, 'base64')).toEqual(saved);
    expect(await s.rendered('run_code', { code: '1' })).toContain('ok');
  }, 120_000);

  it('reports an exception with its traceback, and the kernel lives on', async () => {
    const failed = await s.run('run_code', { code: 'def f():\n    return 1 / 0\nf()' });
    expect(failed.status).toBe('error');
    const error = failed.outputs.find((o: { type: string }) => o.type === 'error');
    expect(error).toMatchObject({ ename: 'ZeroDivisionError', evalue: 'division by zero' });
    expect(error.traceback).toContain('return 1 / 0');
    // eslint-disable-next-line no-control-regex
    expect(error.traceback).not.toMatch(/\x1b\[/);
    const after = await s.run('run_code', { code: 'x' });
    expect(after.outputs).toMatchObject([{ type: 'result', text: '41' }]);
  }, 120_000);

  it('interrupts a busy loop at its timeout and on kernel_interrupt, keeping state', async () => {
    const timed = await s.run('run_code', { code: 'while True:\n    pass', timeout_ms: 1000 });
    expect(timed.status).toBe('timeout');
    expect(timed.outputs.find((o: { type: string }) => o.type === 'error')).toMatchObject({
      ename: 'KeyboardInterrupt',
    });
    const running = s.run('run_code', { code: 'import time\nwhile True:\n    time.sleep(0.01)' });
    let busy = false;
    for (let i = 0; i < 100 && !busy; i++) {
      await new Promise((r) => setTimeout(r, 100));
      busy = (await s.run('kernel_list')).kernels.some((k: { busy: boolean }) => k.busy);
    }
    expect(busy).toBe(true);
    const interrupted = await s.run('kernel_interrupt', { kernel: 'default' });
    expect(interrupted.wasBusy).toBe(true);
    expect((await running).status).toBe('interrupted');
    expect((await s.run('run_code', { code: 'x' })).outputs).toMatchObject([{ text: '41' }]);
  }, 120_000);

  it('restart loses the state; a second kernel name is its own interpreter', async () => {
    await s.run('run_code', { code: 'y = "other"', kernel: 'second' });
    const missing = await s.run('run_code', { code: 'x', kernel: 'second' });
    expect(missing.outputs[0]).toMatchObject({ type: 'error', ename: 'NameError' });
    await s.run('kernel_restart', { kernel: 'default' });
    const gone = await s.run('run_code', { code: 'x' });
    expect(gone.status).toBe('error');
    expect(gone.outputs[0]).toMatchObject({ type: 'error', ename: 'NameError' });
    // Its scratch dir (connection file, sockets) goes with it, though closing kills the driver outright.
    const where = await s.run('run_code', {
      code: 'from ipykernel.connect import get_connection_file; import os; os.path.dirname(get_connection_file())',
      kernel: 'second',
    });
    const scratch = JSON.parse(where.outputs[0].text.replaceAll("'", '"')) as string;
    expect(scratch).toMatch(/toolgate-kernel-/);
    const before = await s.run('run_code', { code: `import os; os.path.isdir(${JSON.stringify(scratch)})` });
    expect(before.outputs).toMatchObject([{ type: 'result', text: 'True' }]);
    await s.run('kernel_close', { kernel: 'second' });
    const after = await s.run('run_code', { code: `import os; os.path.isdir(${JSON.stringify(scratch)})` });
    expect(after.outputs).toMatchObject([{ type: 'result', text: 'False' }]);
    const listed = await s.run('kernel_list');
    expect(listed.kernels.map((k: { kernel: string }) => k.kernel)).toEqual(['default']);
  }, 120_000);
});
