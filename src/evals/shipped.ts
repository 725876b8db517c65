// The datasets shipped with toolgate (the top-level evals/ folder): the built-in tools' behaviour and the
// example tool folders', as data. Found beside the sources (src/evals → ../../evals) or the build
// (dist/src/evals → ../../../evals, where the container copies it).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toolgateError } from '../lib/errors.js';
import { listDatasetFiles, loadDatasetFile, type Dataset } from './dataset.js';

const CANDIDATES = ['../../evals/', '../../../evals/'].map((rel) =>
  fileURLToPath(new URL(rel, import.meta.url)),
);

export const shippedDatasetsDir = (): string | undefined => CANDIDATES.find((dir) => existsSync(dir));

/** The shipped datasets by name (file name without extension). */
export async function shippedDatasetFiles(): Promise<Map<string, string>> {
  const dir = shippedDatasetsDir();
  const files = dir ? await listDatasetFiles(dir) : [];
  return new Map(files.map((file) => [file.replace(/^.*\//, '').replace(/\.[^.]+$/, ''), file]));
}

export async function loadShippedDatasets(names: readonly string[]): Promise<Dataset[]> {
  const files = await shippedDatasetFiles();
  return Promise.all(
    names.map((name) => {
      const file = files.get(name);
      if (!file) {
        throw toolgateError('NOT_FOUND', `No shipped dataset "${name}"`, {
          suggestion: `Shipped datasets: ${[...files.keys()].join(', ') || 'none'}; or send the cases inline.`,
        });
      }
      return loadDatasetFile(file);
    }),
  );
}
