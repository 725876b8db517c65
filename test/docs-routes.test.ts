// The docs may not promise routes or statuses the API does not have: every `METHOD /path` that README.md
// or docs/*.md names is an operation of openapi/openapi.json, and every HTTP status written in the same
// table row or sentence is one that operation declares. The few pages that are not API operations
// (Swagger UI, the document itself, the console) must at least be routes of the app.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../scripts/openapi-document.js';
import { injectApp } from './helpers/app.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).map((file) => `docs/${file}`)].filter(
  (file) => file.endsWith('.md'),
);

/** Pages served by the app but deliberately left out of the API document. */
const NOT_API_OPERATIONS = new Set(['/docs', '/openapi.json', '/console']);

const ROUTE = /\b(GET|POST|PUT|PATCH|DELETE|HEAD)`?\s+`?(\/[A-Za-z.{:][^\s`|)?,]*)/g;
// A status: a 3-digit number not followed by a unit (500 ms, 200 KB, 300 s, 404 lines…).
const STATUS =
  /(?<![\w.\-/:])([1-5]\d\d)(?![\w.%]|\s*(?:ms|s\b|KB|MB|GB|bytes|lines|calls|files|seconds|chars))/g;

interface Mention {
  file: string;
  routes: Array<{ method: string; path: string }>;
  statuses: string[];
  text: string;
}

/** Table rows one by one; prose joined into paragraphs and cut into sentences. Code blocks are skipped. */
function units(text: string): string[] {
  const out: string[] = [];
  let paragraph: string[] = [];
  let inCode = false;
  const flush = () => {
    if (paragraph.length) out.push(...paragraph.join(' ').split(/(?<=[.;])\s+(?=[A-Z`(*])/));
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('```')) {
      inCode = !inCode;
      flush();
      continue;
    }
    if (inCode) continue;
    if (line.trimStart().startsWith('|')) {
      flush();
      out.push(line);
    } else if (line.trim() === '' || /^\s*([-*]|\d+\.)\s/.test(line) || line.startsWith('#')) {
      flush();
      if (line.trim() !== '') paragraph.push(line);
    } else paragraph.push(line);
  }
  flush();
  return out;
}

function mentions(): Mention[] {
  const found: Mention[] = [];
  for (const file of DOCS) {
    for (const text of units(readFileSync(path.join(ROOT, file), 'utf8'))) {
      const routes = [...text.matchAll(ROUTE)].map((m) => ({ method: m[1]!, path: m[2]! }));
      if (routes.length === 0) continue;
      // Statuses count only where the unit names one route: a sentence naming two leaves it open which.
      const statuses = routes.length === 1 ? [...text.matchAll(STATUS)].map((m) => m[1]!) : [];
      found.push({ file, routes, statuses, text });
    }
  }
  return found;
}

const segments = (route: string) =>
  route
    .replace(/[?#].*$/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => (/^[{:]/.test(part) ? '{}' : part));

type Operations = Record<string, Record<string, { responses?: Record<string, unknown> }>>;

/** The document's operations for a doc's route: `{x}` in the doc stands for any segment there. */
function operationsFor(paths: Operations, method: string, route: string) {
  const wanted = segments(route);
  return Object.entries(paths)
    .filter(([candidate]) => {
      const have = segments(candidate);
      return have.length === wanted.length && wanted.every((part, i) => part === '{}' || part === have[i]);
    })
    .map(([, operations]) => operations[method.toLowerCase()])
    .filter((operation) => operation !== undefined);
}

describe('docs name only routes and statuses the API has', () => {
  const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { paths: Operations };
  const all = mentions();

  it('finds the routes the docs name (the check reads them)', () => {
    expect(all.length).toBeGreaterThan(30);
    expect(all.some((m) => m.statuses.length > 0)).toBe(true);
  });

  it('every METHOD /path a doc names is an operation of openapi/openapi.json, with the statuses it gives', async () => {
    const problems: string[] = [];
    const pages: Array<{ method: string; path: string; file: string }> = [];
    for (const mention of all) {
      const operations = mention.routes.flatMap((route) => {
        if (route.path.includes('…')) return [];
        const bare = route.path.replace(/[?#].*$/, '');
        if (NOT_API_OPERATIONS.has(bare)) {
          pages.push({ ...route, file: mention.file });
          return [];
        }
        const found = operationsFor(document.paths, route.method, route.path);
        if (found.length === 0)
          problems.push(`${mention.file}: ${route.method} ${route.path} is not in the API`);
        return found;
      });
      if (operations.length === 0) continue;
      for (const status of mention.statuses) {
        if (!operations.some((operation) => status in (operation.responses ?? {}))) {
          problems.push(
            `${mention.file}: ${mention.routes[0]!.method} ${mention.routes[0]!.path} never answers ${status} ("${mention.text.trim().slice(0, 160)}")`,
          );
        }
      }
    }
    const harness = await injectApp();
    try {
      for (const page of pages) {
        if (!harness.app.hasRoute({ method: page.method as 'GET', url: page.path })) {
          problems.push(`${page.file}: ${page.method} ${page.path} is not a route of the app`);
        }
      }
    } finally {
      await harness.close();
    }
    expect(problems).toEqual([]);
  });
});
