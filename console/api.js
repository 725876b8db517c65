// The console's only way to the service: fetch() with the admin key as a Bearer header. The key lives in
// sessionStorage (this tab only, gone when it closes) and never in a URL. Server-Sent Events are read with
// fetch and a stream reader, because EventSource cannot send an Authorization header.
const KEY = 'toolgate.adminKey';

export const adminKey = {
  get: () => sessionStorage.getItem(KEY),
  set: (key) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code;
    this.body = body;
  }
}

/** Listeners told when the key is refused (401), so the page can ask for it again. */
const unauthorizedListeners = new Set();
export const onUnauthorized = (listener) => unauthorizedListeners.add(listener);

function headers(extra = {}) {
  const key = adminKey.get();
  return { ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
}

/** Calls the API; resolves to the parsed JSON body (null for 204), throws ApiError on an error status. */
export async function api(path, options = {}) {
  const { status, text } = await send(path, options);
  const parsed = text ? JSON.parse(text) : null;
  if (status < 200 || status >= 300) throw new ApiError(status, parsed);
  return parsed;
}

/** Like api(), for answers that are text (a diff): resolves to the body as a string. */
export async function apiText(path, options = {}) {
  const { status, text } = await send(path, options);
  if (status < 200 || status >= 300) throw new ApiError(status, parseOrNull(text));
  return text;
}

async function send(path, { method = 'GET', body, signal, query } = {}) {
  const url = query ? `${path}?${new URLSearchParams(definedEntries(query))}` : path;
  const res = await fetch(url, {
    method,
    signal,
    headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status === 401) for (const listener of unauthorizedListeners) listener();
  return { status: res.status, text };
}

function parseOrNull(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const definedEntries = (query) =>
  Object.entries(query).filter(([, value]) => value !== undefined && value !== null && value !== '');

/**
 * Reads an SSE stream until `signal` aborts, calling onEvent({ id, event, data }) per event (data parsed
 * as JSON). Reconnects after a drop with Last-Event-ID, so nothing buffered is missed.
 */
export async function streamEvents(path, onEvent, signal, onState = () => {}) {
  let lastId;
  while (!signal.aborted) {
    try {
      const res = await fetch(path, {
        signal,
        headers: headers({ accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) }),
      });
      if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null));
      onState('open');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = parseBlock(block);
          if (event) {
            if (event.id) lastId = event.id;
            onEvent(event);
          }
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      onState('error', err);
      if (err instanceof ApiError && (err.status === 401 || err.status === 404)) return;
    }
    if (signal.aborted) return;
    onState('reconnecting');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function parseBlock(block) {
  let id;
  let event = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':') || line === '') continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  const text = data.join('\n');
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { id, event, data: parsed };
}
