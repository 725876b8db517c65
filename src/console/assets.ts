// The operator console's files: the HTML page, its ES modules and stylesheet (console/ at the app root,
// next to package.json in the repo and in the container) and uPlot from node_modules. A fixed table read
// once into memory, so a request can only ever name one of these files.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** The app root: the nearest folder above this module holding package.json (src/… and dist/src/… alike). */
function appRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!readdirSync(dir).includes('package.json')) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('console: no package.json above the console module');
    dir = parent;
  }
  return dir;
}

const asset = (file: string): ConsoleAsset => ({
  body: readFileSync(file),
  contentType: TYPES[path.extname(file)] ?? 'application/octet-stream',
});

/** Asset name (as in /console/assets/<name>) → file; index.html is the page itself. */
export function loadConsoleAssets(): Map<string, ConsoleAsset> {
  const dir = path.join(appRoot(), 'console');
  const assets = new Map<string, ConsoleAsset>();
  for (const name of readdirSync(dir)) {
    if (path.extname(name) in TYPES) assets.set(name, asset(path.join(dir, name)));
  }
  // uPlot is served from the installed package (a runtime dependency), never from a CDN.
  const require = createRequire(import.meta.url);
  assets.set('uPlot.esm.js', asset(require.resolve('uplot/dist/uPlot.esm.js')));
  assets.set('uPlot.min.css', asset(require.resolve('uplot/dist/uPlot.min.css')));
  return assets;
}
