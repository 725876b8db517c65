// Hands an HTML page's conversion (html-markdown.ts) to the CpuPool: linkedom, Readability and Turndown
// are synchronous and cost seconds on a big page, which on the event loop every session would wait for.
import type { CpuJobOptions, CpuPool } from '../cpu/cpu-pool.js';
import { jobModule } from '../cpu/job-module.js';
import type { Readable } from './html-markdown.js';

export const HTML_JOBS = jobModule(import.meta.url, './html-markdown');

export const readableInWorker = (
  cpu: CpuPool,
  input: { html: string; url: string; as: 'markdown' | 'text' },
  options: CpuJobOptions,
): Promise<Readable> =>
  cpu.run({ module: HTML_JOBS, fn: 'readable', input, label: 'Converting the page to Markdown' }, options);
