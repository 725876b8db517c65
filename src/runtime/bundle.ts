// The code that runs inside a runtime is one self-contained CommonJS file, bundled with esbuild from
// src/runtime/inside/main (the .ts sources under tsx, the compiled .js in a production build). One file
// is all the sandbox needs to see of toolgate: it is bind-mounted read-only, beside the node binary.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

let built: string | undefined;

/** Path of the bundled runtime (built once per process, cached by content in the temp dir). */
export function runtimeBundle(): string {
  if (built) return built;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const entry = ['main.ts', 'main.js'].map((f) => path.join(here, 'inside', f)).find((f) => existsSync(f));
  if (!entry) throw new Error(`runtime entry not found under ${path.join(here, 'inside')}`);
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    minify: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const dir = path.join(tmpdir(), 'toolgate-runtime');
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const file = path.join(dir, `runtime-${hash}.cjs`);
  if (!existsSync(file) || !readFileSync(file).equals(Buffer.from(code))) {
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, code, { mode: 0o644 });
    renameSync(temp, file);
  }
  built = file;
  return file;
}
