// Previews of a session's servers: which ports a session has exposed (its profile's `preview.ports` and
// what expose_port added), links to them, and connections to them through the session's runtime
// (ingress.ts). The HTTP side (routes/previews.ts, http/preview-upgrade.ts) asks this for everything.
import http from 'node:http';
import type net from 'node:net';
import type { Config, ProfileConfig } from '../config.js';
import { toolgateError } from '../lib/errors.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { ExposedPortStore } from '../store/exposed-ports.js';
import type { SessionRecord } from '../store/sessions.js';
import type { PreviewSink } from './audit.js';
import type { Ingress } from './ingress.js';
import { signLink, verifyLink, type PreviewGrant } from './links.js';

/** The link path of a token; a browser opens `<service URL><this>`. */
export const previewPath = (token: string) => `/v1/previews/${token}/`;

export interface ExposedPort {
  readonly port: number;
  /** `policy` (the profile's preview.ports), `tool` (expose_port) or `admin`. */
  readonly exposedBy: string;
  readonly exposedAt: number | null;
}

export interface PreviewLink {
  readonly port: number;
  readonly token: string;
  /** The link's path on this service: `/v1/previews/<token>/`. */
  readonly path: string;
  readonly expiresAt: string;
}

/** How long the list of a session's exposed ports is trusted before it is read again (other replicas). */
const CACHE_MS = 1000;

type SessionRef = Pick<SessionRecord, 'id' | 'profile' | 'network' | 'image'>;

export class PreviewService {
  private readonly cache = new Map<string, { ports: ExposedPort[]; at: number }>();
  /** Keep-alive agents per session and port: a browser's many requests reuse connections into the sandbox. */
  private readonly agents = new Map<string, http.Agent>();

  constructor(
    private readonly config: Config,
    private readonly store: ExposedPortStore,
    private readonly runtimes: RuntimeManager,
    readonly ingress: Ingress,
    private readonly linkKey: Buffer,
    /** Each request or WebSocket connection when it ends: an audit row, the counters. */
    readonly record: PreviewSink,
  ) {}

  private policy(session: SessionRef): NonNullable<ProfileConfig['preview']> {
    return this.config.profiles[session.profile]?.preview ?? { expose: false };
  }

  /** Whether the session's profile lets it expose ports at all. */
  mayExpose(session: SessionRef): boolean {
    return this.policy(session).expose;
  }

  private assertMayExpose(session: SessionRef): void {
    if (!this.mayExpose(session)) {
      throw toolgateError(
        'PREVIEW_NOT_ALLOWED',
        `Sessions of profile "${session.profile}" may not expose ports`,
        {
          suggestion:
            'An operator allows it with `preview: { expose: true }` in the profile (docs/previews.md).',
        },
      );
    }
  }

  async exposed(session: SessionRef): Promise<ExposedPort[]> {
    if (!this.mayExpose(session)) return [];
    const cached = this.cache.get(session.id);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.ports;
    const byPolicy = (this.policy(session).ports ?? []).map((port) => ({
      port,
      exposedBy: 'policy',
      exposedAt: null,
    }));
    const stored = (await this.store.list(session.id)).filter(
      (row) => !byPolicy.some((p) => p.port === row.port),
    );
    const ports = [...byPolicy, ...stored].sort((a, b) => a.port - b.port);
    this.cache.set(session.id, { ports, at: Date.now() });
    return ports;
  }

  async expose(session: SessionRef, port: number, by: string): Promise<ExposedPort> {
    this.assertMayExpose(session);
    await this.store.add(session.id, port, by);
    this.cache.delete(session.id);
    return (await this.exposed(session)).find((exposed) => exposed.port === port)!;
  }

  /**
   * Stops exposing a port that a call exposed: previews and links of it are refused from then on (on
   * other replicas within CACHE_MS), idle keep-alive connections into it close; a WebSocket already open
   * stays. The profile's ports cannot be taken back by a call (409), a port not exposed is a 403.
   */
  async unexpose(session: SessionRef, port: number): Promise<void> {
    this.assertMayExpose(session);
    if ((this.policy(session).ports ?? []).includes(port)) {
      throw toolgateError(
        'PORT_EXPOSED_BY_POLICY',
        `Port ${port} is exposed by the profile "${session.profile}", not by a call`,
        {
          suggestion: "An operator removes it from the profile's preview.ports.",
          details: { port },
        },
      );
    }
    const removed = await this.store.remove(session.id, port);
    this.cache.delete(session.id);
    this.dropAgent(session.id, port);
    if (!removed) {
      throw toolgateError('PORT_NOT_EXPOSED', `Port ${port} of this session is not exposed`, {
        details: { port },
      });
    }
  }

  /** PORT_NOT_EXPOSED unless the session may expose ports and has exposed this one. */
  async assertExposed(session: SessionRef, port: number): Promise<void> {
    this.assertMayExpose(session);
    if ((await this.exposed(session)).some((exposed) => exposed.port === port)) return;
    throw toolgateError('PORT_NOT_EXPOSED', `Port ${port} of this session is not exposed`, {
      suggestion:
        'The session exposes it with the expose_port tool (or its profile lists it in preview.ports).',
      details: { port },
    });
  }

  /** A signed link to an exposed port, valid `minutes` (the config's default when undefined). */
  async link(session: SessionRef, port: number, minutes?: number): Promise<PreviewLink> {
    await this.assertExposed(session, port);
    const { linkMinutes, maxLinkMinutes } = this.config.preview;
    const lasting = Math.min(minutes ?? linkMinutes, maxLinkMinutes);
    const expiresAt = Math.floor(Date.now() / 1000) + lasting * 60;
    const token = signLink(this.linkKey, { sessionId: session.id, port, expiresAt });
    return { port, token, path: previewPath(token), expiresAt: new Date(expiresAt * 1000).toISOString() };
  }

  /** The session and port a link grants (signature and expiry checked; the session and port are not). */
  verify(token: string): PreviewGrant {
    return verifyLink(this.linkKey, token);
  }

  /**
   * A raw connection to the port inside the session (WebSocket upgrades, and each connection of the
   * agent). After a restart on a backend whose runtimes outlive the service (docker, kubernetes), the
   * session's container is re-attached in the background (RuntimeManager.reattachRunning): its servers
   * still listen, so a preview waits for that, as job tools do, instead of finding no running runtime.
   */
  async connect(session: SessionRef, port: number): Promise<net.Socket> {
    await this.runtimes.reattached(session.id);
    return this.ingress.connect(this.runtimes.for(session), port);
  }

  /** The keep-alive agent whose connections go to the port inside the session. */
  agent(session: SessionRef, port: number): http.Agent {
    const key = `${session.id}:${port}`;
    let agent = this.agents.get(key);
    if (agent) return agent;
    agent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 8, timeout: 60_000 });
    // Node's agent accepts a callback-style createConnection: the socket arrives once the runtime delivers it.
    (agent as unknown as { createConnection: unknown }).createConnection = (
      _options: unknown,
      done: (err: Error | null, socket?: net.Socket) => void,
    ) => {
      this.connect(session, port).then(
        (socket) => {
          // The ingress hands it over paused (it stopped reading after the ticket): the client reads now.
          socket.resume();
          done(null, socket);
        },
        (err: Error) => done(err),
      );
      return undefined;
    };
    this.agents.set(key, agent);
    return agent;
  }

  private dropAgent(sessionId: string, port: number): void {
    const key = `${sessionId}:${port}`;
    this.agents.get(key)?.destroy();
    this.agents.delete(key);
  }

  /** The session is gone: its agents and cached ports go (its rows go with the session's). */
  forgetSession(sessionId: string): void {
    this.cache.delete(sessionId);
    for (const [key, agent] of this.agents) {
      if (!key.startsWith(`${sessionId}:`)) continue;
      agent.destroy();
      this.agents.delete(key);
    }
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
    await this.ingress.close();
  }
}
