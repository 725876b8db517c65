// A throwaway virtualenv with the Python client installed the way its README says (`pip install
// ./clients/python`), plus pytest, openai (the README's loop) and langchain-core, from the package index
// pip is configured with. langchain-core is installed without its dependency langchain-protocol, which
// some indexes lack and which langchain_core.tools never imports; its other dependencies are listed.
// Returns the venv's python, or why there is none (no python3, no venv module, a package missing).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/app.js';

const run = promisify(execFile);

const CLIENT_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../clients/python');
const LANGCHAIN_CORE_DEPS = ['jsonpatch', 'langsmith', 'pyyaml', 'tenacity', 'uuid-utils', 'packaging'];

export async function pythonClientVenv(): Promise<{ python: string } | { problem: string }> {
  const base = process.env.TOOLGATE_PYTHON_BASE ?? 'python3';
  const venv = path.join(tempDir('toolgate-pyclient-'), 'venv');
  const pip = (args: string[]) =>
    run(path.join(venv, 'bin/pip'), ['install', '-q', '--retries', '0', '--timeout', '10', ...args], {
      timeout: 300_000,
      env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
    });
  try {
    await run(base, ['-m', 'venv', venv], { timeout: 60_000 });
    await pip([CLIENT_DIR, 'pytest', 'openai', ...LANGCHAIN_CORE_DEPS]);
    await pip(['--no-deps', 'langchain-core']);
    return { python: path.join(venv, 'bin/python') };
  } catch (err) {
    const text = String((err as { stderr?: string }).stderr || (err as Error).message);
    const line = text.split('\n').filter((l) => /error/i.test(l))[0] ?? text.split('\n')[0];
    return {
      problem: `no venv with the Python client (${base} -m venv, then pip install ./clients/python pytest openai langchain-core: ${line.trim()})`,
    };
  }
}
