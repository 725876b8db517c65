import { load, startServer } from './lib.js';
const server = await startServer();
const s = await server.session({ profile: 'read-only', files: { 'a.txt': 'one\ntwo\n' } });
const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'a.txt' } } });
const r = await load({ url: `${server.url}/mcp`, method: 'POST', headers, body, connections: 50, duration: 6 });
console.log('mcp', r);
await server.close();
