// A request target as a path and query, whatever form the client sent it in (RFC 9112 3.2).

/**
 * The path and query of a request target: an absolute-form target (`POST http://x/v1/…`, which HTTP/1.1
 * servers must accept) names a scheme and host that are the client's business, not the owner's.
 */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const url = URL.canParse(target) ? new URL(target) : undefined;
  return url ? `${url.pathname}${url.search}` : '/';
}
