// Many replicas, one service (issue 31): three toolgate processes on loopback ports sharing a data dir
// and a database, HAProxy in front running docker/haproxy/haproxy.cfg. Sessions made on one replica are
// used through the others; approvals, SSE and streamed command output cross replicas; kill -9 of a
// session's owner under mixed load loses no acknowledged call and answers no idempotency key twice.
// Slow (process starts, a kill): behind TOOLGATE_TEST_REPLICAS=1, which .ci/run sets.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/migrations.js';
import { LeaseStore } from '../../src/store/leases.js';
import { openSqlDatabase } from '../../src/store/open.js';
import { CHILD_ADMIN_KEY } from '../ops/child-server.js';
import { freshSchema, onPostgres } from '../helpers/postgres.js';
import { startRedis } from '../helpers/redis.js';
import { ReplicaCluster, sessionCall, type Replica } from './replica-cluster.js';

const enabled = process.env.TOOLGATE_TEST_REPLICAS === '1' && process.env.TOOLGATE_TEST_SANDBOX === undefined;
if (!enabled) {
  console.log(
    process.env.TOOLGATE_TEST_REPLICAS === '1'
      ? 'skipping the replicas system test in this project: it runs once, in the bwrap project'
      : 'skipping the replicas system test: set TOOLGATE_TEST_REPLICAS=1 (.ci/run does)',
  );
}

type Session = { id: string; token: string };

/** The lease holder, read from the replicas' database. */
const ownerOf = async (cluster: ReplicaCluster, sessionId: string): Promise<string | undefined> => {
  const db = await openSqlDatabase({ dataDir: cluster.dataDir, url: cluster.databaseUrl }, MIGRATIONS);
  try {
    return (await new LeaseStore(db).get(sessionId))?.replicaId;
  } finally {
    await db.close();
  }
};

const json = async (res: Response) =>
  (await res.json()) as Record<string, unknown> & { data?: Record<string, unknown> };

describe.skipIf(!enabled)('replicas: three processes, one service', () => {
  let cluster: ReplicaCluster;
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
  let configDir = '';
  beforeAll(async () => {
    // Made here, not at collection: a skipped describe's body still runs, its hooks do not.
    configDir = mkdtempSync(path.join(tmpdir(), 'toolgate-replicas-config-'));
    const configFile = path.join(configDir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        profiles: { gated: { permissions: ['read', 'write', 'execute'], approval: ['create_directory'] } },
      }),
    );
    redis = await startRedis();
    // bwrap where it works (CI, as root): a moved session's runtime starts again on the shared workspace.
    cluster = await ReplicaCluster.start({
      replicas: 3,
      balancer: true,
      // The `postgres` project (once the stores are on SqlDatabase) gives the replicas a fresh schema.
      ...(onPostgres() ? { databaseUrl: (await freshSchema()).url } : {}),
      env: { TOOLGATE_CONFIG: configFile, TOOLGATE_SANDBOX: 'auto', REDIS_URL: redis.url },
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    await redis?.stop();
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });

  const urls = () => cluster.replicas.filter((r) => r.server).map((r) => r.url);

  it('serves a session made on one replica through the others, its owner holding the lease', async () => {
    const [r1, r2, r3] = urls();
    const session = await cluster.session(r1, { profile: 'full' });
    const wrote = await sessionCall(r2, session, 'write_file', { path: 'a.txt', content: 'one\n' });
    expect(wrote.status).toBe(200);
    // The first replica to serve it owns it; the others forward.
    expect(await ownerOf(cluster, session.id)).toBe('r2');
    const read = await sessionCall(r3, session, 'read_file', { path: 'a.txt' });
    expect(read.status).toBe(200);
    expect((await json(read)).data?.content).toBe('one');
    // Through the balancer as well, and a session's GET and DELETE go to its owner too.
    const viaBalancer = await sessionCall(cluster.balancerUrl!, session, 'read_file', { path: 'a.txt' });
    expect(viaBalancer.status).toBe(200);
    expect((await cluster.admin(r3, `/v1/sessions/${session.id}`)).status).toBe(200);
    const deleted = await fetch(`${r1}/v1/sessions/${session.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${CHILD_ADMIN_KEY}` },
    });
    expect(deleted.status).toBe(204);
    expect(await ownerOf(cluster, session.id)).toBeUndefined();
    // 404 while r3 still holds the token in its one-second cache, 401 after: never served.
    const gone = await sessionCall(r3, session, 'read_file', { path: 'a.txt' });
    expect([401, 404]).toContain(gone.status);
    expect((await sessionCall(r3, session, 'read_file', { path: 'a.txt' })).status).not.toBe(200);
  });

  it('streams SSE events and command output from the owner through another replica', async () => {
    const [r1, r2, r3] = urls();
    const session = await cluster.session(r1, { profile: 'full' });
    expect((await sessionCall(r1, session, 'write_file', { path: 'x', content: 'x' })).status).toBe(200);
    const events = new AbortController();
    const stream = await fetch(`${r2}/v1/sessions/${session.id}/events`, {
      headers: { authorization: `Bearer ${session.token}`, accept: 'text/event-stream' },
      signal: events.signal,
    });
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
    const seen: string[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream.body!) seen.push(decoder.decode(chunk));
    })().catch(() => undefined);
    const streamed = await sessionCall(
      r3,
      session,
      'run_command',
      { command: 'echo from-the-owner' },
      { accept: 'text/event-stream' },
    );
    const text = await streamed.text();
    expect(text).toMatch(/event: output/);
    expect(text).toMatch(/from-the-owner/);
    const deadline = Date.now() + 5000;
    while (!seen.join('').includes('tool_call_end') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    events.abort();
    await reading;
    expect(seen.join('')).toMatch(/tool_call_start[\s\S]*run_command/);
  });

  it('releases a call parked on the owner when another replica approves it', async () => {
    const [r1, r2, r3] = urls();
    const session = await cluster.session(r1, { profile: 'gated' });
    const parked = await sessionCall(r2, session, 'create_directory', { path: 'approved-dir' });
    expect(parked.status).toBe(202);
    const { callId } = (await parked.json()) as { callId: string };
    const waiting = fetch(`${r1}/v1/sessions/${session.id}/calls/${callId}?wait=20`, {
      headers: { authorization: `Bearer ${session.token}` },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const approved = await cluster.admin(r3, `/v1/approvals/${callId}/approve`, {
      method: 'POST',
      body: '{}',
    });
    expect(approved.status).toBe(200);
    const result = await waiting;
    expect(result.status).toBe(200);
    expect(((await result.json()) as { success: boolean }).success).toBe(true);
    const listed = await sessionCall(r3, session, 'list_directory', { path: '.' });
    expect(JSON.stringify(await listed.json())).toMatch(/approved-dir/);
  });

  it('serves MCP with a session token from the owner, through another replica', async () => {
    const [r1, r2, r3] = urls();
    const session = await cluster.session(r1, { profile: 'read-write' });
    expect((await sessionCall(r2, session, 'write_file', { path: 'm.txt', content: 'mcp\n' })).status).toBe(
      200,
    );
    const client = new Client({ name: 'replicas-test', version: '1.0.0' });
    let servedBy: string | null = null;
    const transport = new StreamableHTTPClientTransport(new URL(`${r3}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${session.token}` } },
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        servedBy = res.headers.get('x-toolgate-replica');
        return res;
      },
    });
    await client.connect(transport);
    try {
      const read = (await client.callTool({
        name: 'read_file',
        arguments: { path: 'm.txt' },
      })) as CallToolResult;
      expect(read.isError).toBeFalsy();
      expect(JSON.stringify(read.content)).toMatch(/mcp/);
      expect(servedBy).toBe('r2');
    } finally {
      await client.close();
    }
  });

  it('applies a tool switch set on one replica on the others within a few beats', async () => {
    const [r1, r2] = urls();
    const session = await cluster.session(r1, { profile: 'read-write' });
    expect((await sessionCall(r2, session, 'write_file', { path: 's.txt', content: 's' })).status).toBe(200);
    const patch = (enabled: boolean) =>
      cluster.admin(r1, '/v1/tools/read_file', { method: 'PATCH', body: JSON.stringify({ enabled }) });
    expect((await patch(false)).status).toBe(200);
    try {
      let status = 200;
      const deadline = Date.now() + 5000;
      while (status !== 403 && Date.now() < deadline) {
        status = (await sessionCall(r2, session, 'read_file', { path: 's.txt' })).status;
        if (status !== 403) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(403);
    } finally {
      expect((await patch(true)).status).toBe(200);
    }
  });

  it('kill -9 of an owner under load: no acknowledged call lost, no idempotency key answered twice', async () => {
    const balancer = cluster.balancerUrl!;
    const sessions: Session[] = [];
    for (let i = 0; i < 3; i++) sessions.push(await cluster.session(urls()[0], { profile: 'full' }));
    // Each session first served through the balancer: the hash picks its owner.
    for (const session of sessions) {
      expect(
        (await sessionCall(balancer, session, 'write_file', { path: 'log.txt', content: '' })).status,
      ).toBe(200);
    }
    const victimId = (await ownerOf(cluster, sessions[0].id))!;
    const victim = cluster.replicas.find((r) => r.id === victimId) as Replica;
    const owners = await Promise.all(sessions.map((s) => ownerOf(cluster, s.id)));
    const mine = sessions.filter((_, i) => owners[i] === victimId);

    /** The answer each idempotency key got (its first below 500), and what was sent with it. */
    const answers = new Map<
      string,
      { session: Session; tool: string; input: unknown; status: number; data: unknown }
    >();
    const acknowledged: { sessionId: string; callId: string }[] = [];
    /** What each file may hold: its last acknowledged content, or one of those tried since without an answer. */
    const possible = new Map<string, Set<string>>();
    const wrote = (where: string, content: string, acked: boolean) => {
      if (acked) possible.set(where, new Set([content]));
      else possible.get(where)?.add(content);
    };
    let stop = false;
    let failedOver: number | undefined;
    let killedAt = 0;

    const call = async (session: Session, tool: string, input: unknown, key: string, unsure?: () => void) => {
      // Retried with the same key until answered: 503 while the session moves, refused connections.
      for (let attempt = 0; ; attempt++) {
        if (attempt === 1) unsure?.();
        const res = await sessionCall(balancer, session, tool, input, { 'idempotency-key': key }).catch(
          () => undefined,
        );
        if (res && res.status < 500) {
          const body = (await res.json()) as { callId: string; success: boolean; data?: unknown };
          answers.set(key, { session, tool, input, status: res.status, data: body.data });
          if (res.status === 200) acknowledged.push({ sessionId: session.id, callId: body.callId });
          if (killedAt && failedOver === undefined && mine.some((s) => s.id === session.id)) {
            failedOver = Date.now() - killedAt;
          }
          return res.status;
        }
        await res?.text();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    const worker = async (w: number) => {
      const session = sessions[w % sessions.length];
      const file = `w${w}.txt`;
      for (let seq = 0; !stop; seq++) {
        const key = `k-${w}-${seq}`;
        const where = `${session.id}/${file}`;
        switch (seq % 4) {
          case 0: {
            const content = `seq ${seq}`;
            // An attempt lost with its replica may have run: its content is possible, not acknowledged.
            const status = await call(
              session,
              'write_file',
              { path: file, content: `${content}\n` },
              key,
              () => wrote(where, content, false),
            );
            if (status === 200) wrote(where, content, true);
            break;
          }
          case 1:
            await call(session, 'read_file', { path: file }, key);
            break;
          case 2: {
            const content = `seq ${seq + 2}`;
            const edit = { path: file, old_string: `seq ${seq - 2}`, new_string: content };
            const status = await call(session, 'edit_file', edit, key, () => wrote(where, content, false));
            if (status === 200) wrote(where, content, true);
            break;
          }
          default:
            await call(session, 'run_command', { command: `echo ${seq} >> cmd-${w}.log` }, key);
        }
      }
    };
    const workers = [0, 1, 2, 3, 4, 5].map(worker);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    killedAt = Date.now();
    await cluster.kill(victim);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    stop = true;
    await Promise.all(workers);

    expect(mine.length).toBeGreaterThan(0);
    expect(failedOver).toBeDefined();
    expect(failedOver!).toBeLessThan(10_000);
    for (const session of mine) expect(await ownerOf(cluster, session.id)).not.toBe(victimId);

    // The killed replica comes back with its id: its crash journal's rows are committed.
    await cluster.startReplica(victim);
    const live = urls()[0];
    for (const session of sessions) {
      const audit = (await (
        await cluster.admin(live, `/v1/audit?sessionId=${session.id}&limit=1000`)
      ).json()) as {
        entries?: { callId: string }[];
        rows?: { callId: string }[];
      };
      const logged = new Set((audit.entries ?? audit.rows ?? []).map((row) => row.callId));
      for (const ack of acknowledged.filter((a) => a.sessionId === session.id)) {
        expect(logged.has(ack.callId), `audit row of ${ack.callId}`).toBe(true);
      }
    }
    // One answer per key: every key sent again now (after the kill, the take-over and the restart) is
    // answered from the result stored for it, not run again: the same status and data (a replay is a
    // call of its own, with its own call id and audit row, marked Idempotent-Replayed).
    expect(answers.size).toBeGreaterThan(20);
    for (const [key, first] of answers) {
      const res = await sessionCall(balancer, first.session, first.tool, first.input, {
        'idempotency-key': key,
      });
      const body = (await res.json()) as { data?: unknown };
      expect([key, res.status, res.headers.get('idempotent-replayed'), body.data]).toEqual([
        key,
        first.status,
        'true',
        first.data,
      ]);
    }
    // Every acknowledged write's effect is there: each file holds its last acknowledged content.
    expect(possible.size).toBe(6);
    for (const [where, contents] of possible) {
      const [sessionId, file] = where.split('/');
      const session = sessions.find((s) => s.id === sessionId)!;
      const read = await json(await sessionCall(live, session, 'read_file', { path: file }));
      expect([...contents]).toContain(read.data?.content);
    }
  }, 90_000);
});
