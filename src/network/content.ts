// What kind of body a fetched response has, by its content type (and, without one, by its bytes), and
// its text decoded with the charset it names: HTML to be made readable, JSON and other text as they are,
// anything else binary.
export type Body =
  { readonly kind: 'html' | 'json' | 'text'; readonly text: string } | { readonly kind: 'binary' };

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|ecmascript|x-www-form-urlencoded|x-sh|toml|yaml|x-yaml)\b)|\+(json|xml)\b/;

function decode(bytes: Buffer, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

export function readableBody(contentType: string, bytes: Buffer): Body {
  const type = contentType.toLowerCase();
  if (type.startsWith('text/html') || type.startsWith('application/xhtml')) {
    return { kind: 'html', text: decode(bytes, contentType) };
  }
  if (/json/.test(type.split(';')[0] ?? '')) return { kind: 'json', text: decode(bytes, contentType) };
  if (TEXT_TYPES.test(type)) return { kind: 'text', text: decode(bytes, contentType) };
  // No content type: text when the first bytes hold no NUL and decode as UTF-8.
  if (type === '') {
    const head = bytes.subarray(0, 8192);
    if (!head.includes(0)) {
      try {
        return { kind: 'text', text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
      } catch {
        // Not UTF-8: binary.
      }
    }
  }
  return { kind: 'binary' };
}
