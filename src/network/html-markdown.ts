// A fetched HTML page as Markdown a model can read: Readability keeps the article (dropping navigation,
// ads and footers) on a linkedom document — a DOM without a browser, fast enough for a tool call — and
// Turndown writes it as Markdown. A page Readability finds no article in is converted whole. It costs
// seconds on a big page, so it runs as a CpuPool job (readable(), via html-job.ts), never on the event loop.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

export interface Readable {
  readonly title: string | undefined;
  /** The main content as Markdown, or as plain text when asked for. */
  readonly content: string;
}

/** One converter for every call: its rules are fixed, and building it is not free. */
const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
});
turndown.remove(['script', 'style', 'noscript', 'iframe', 'form'] as never);

const tidy = (text: string) =>
  text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/**
 * The page's main content. The page is parsed once: Readability hands back its article as the linkedom
 * element itself (not serialised to HTML), and Turndown converts that element (given a string, it would
 * parse it again with a second DOM). Only a page without an article is parsed a second time, whole.
 */
export function htmlToReadable(html: string, url: string, as: 'markdown' | 'text'): Readable {
  const { document } = parseHTML(html);
  const title = document.title?.trim() || undefined;
  let article: { title?: string | null; content?: Element | null; textContent?: string | null } | null = null;
  try {
    // Readability resolves relative links against the document's URL; linkedom has none, so a <base>.
    const base = document.createElement('base');
    base.setAttribute('href', url);
    document.head?.prepend(base);
    article = new Readability<Element>(document as unknown as Document, {
      charThreshold: 200,
      serializer: (element) => element as Element,
    }).parse();
  } catch {
    article = null;
  }
  const fallback = () => parseHTML(html).document.body;
  const content =
    as === 'text'
      ? tidy(article?.textContent ?? fallback()?.textContent ?? '')
      : tidy(turndown.turndown((article?.content ?? fallback() ?? html) as unknown as TurndownService.Node));
  return { title: article?.title?.trim() || title, content };
}

/** htmlToReadable as a CpuPool job: one structured-cloneable input. */
export const readable = (input: { html: string; url: string; as: 'markdown' | 'text' }): Readable =>
  htmlToReadable(input.html, input.url, input.as);
