// The code that runs inside a runtime is one self-contained CommonJS file, bundled with esbuild from
// src/runtime/inside/main (the .ts sources under tsx, the compiled .js in a production build). One file
// is all the sandbox needs to see of toolgate: it is bind-mounted read-only, beside the node binary.
// `npm run build` writes it once beside the compiled module (runtime.cjs), so a production install (the
// image) neither bundles at each start nor carries esbuild; from the sources (`npm start`, the tests)
// it is bundled at the first use in each process, so it always matches the code.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Esbuild from 'esbuild';

let built: string | undefined;

const here = () => path.dirname(fileURLToPath(import.meta.url));
/** Where `npm run build` leaves the bundle: beside this module in dist/. */
const prebuiltBundle = () => path.join(here(), 'runtime.cjs');

/** The bundle's code, made now with esbuild (a development dependency, loaded only here). */
function bundleCode(): Uint8Array {
  const entry = ['main.ts', 'main.js'].map((f) => path.join(here(), 'inside', f)).find((f) => existsSync(f));
  if (!entry) throw new Error(`runtime entry not found under ${path.join(here(), 'inside')}`);
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
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
  return result.outputFiles[0].contents;
}

/** Writes the bundle beside the compiled module (the last step of `npm run build`); its path. */
export function writePrebuiltBundle(): string {
  const file = prebuiltBundle();
  writeFileSync(file, bundleCode(), { mode: 0o644 });
  return file;
}

/** Path of the bundled runtime: the build's, else built once per process, cached by content in the temp dir. */
export function runtimeBundle(): string {
  if (built) return built;
  if (existsSync(prebuiltBundle())) return (built = prebuiltBundle());
  const code = bundleCode();
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
