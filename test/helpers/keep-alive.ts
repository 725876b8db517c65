// POSTs of JSON on one keep-alive connection, for tests of what happens to a call when its client leaves
// a connection that has already carried other calls (the client-gone hook is the connection's).
import http from 'node:http';

export interface KeepAlivePoster {
  /** Sends the body; the request, to destroy when the test means the client to leave. */
  send(body: unknown): http.ClientRequest;
  /** Sends the body and resolves with the status once the answer is read. */
  answered(body: unknown): Promise<number>;
  close(): void;
}

export function keepAlivePoster(url: string | URL, headers: Record<string, string>): KeepAlivePoster {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = (body: unknown) => {
    const req = http.request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', ...headers },
    });
    req.end(JSON.stringify(body));
    return req;
  };
  return {
    send,
    answered: (body) =>
      new Promise<number>((resolve, reject) => {
        const req = send(body);
        req.on('response', (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)));
        req.on('error', reject);
      }),
    close: () => agent.destroy(),
  };
}
