// /healthz (the process is up) and /readyz (database writable, workspace root writable, command sandbox,
// an event loop that is not blocked, room for new sessions).
import { constants, promises as fs } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { diskState } from '../ops/disk.js';
import { Capacity } from '../ops/capacity/index.js';
import { Type, type Static } from 'typebox';
import type { Config } from '../config.js';
import type { RuntimeBackend } from '../runtime/backends/types.js';

const Check = Type.Object({
  ok: Type.Boolean(),
  detail: Type.Optional(Type.String()),
  // The sandbox check also says which backend runs commands and whether it isolates them.
  backend: Type.Optional(Type.Union([Type.Enum(['bwrap', 'none', 'docker', 'kubernetes']), Type.Null()])),
  isolated: Type.Optional(Type.Boolean()),
  executionEnabled: Type.Optional(Type.Boolean()),
  // The capacity check: whether a limit refuses new sessions (GET /v1/capacity has each limit).
  full: Type.Optional(Type.Boolean()),
  // The images check (docker): the configured runtime images the engine lacks, by reference.
  missing: Type.Optional(Type.Array(Type.String())),
});

export default async function healthRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'health',
        tags: ['health'],
        summary: 'Liveness: the process is up',
        description: 'Answers 200 as long as the process serves HTTP; it checks nothing else (see /readyz).',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'ready',
        tags: ['health'],
        summary: 'Readiness: database, workspaces, disk and sandbox, each with its state',
        description:
          '503 when the database cannot take a write, the workspace root is not writable, the data ' +
          'filesystem is below its free-space or free-inode floor, the configured sandbox is missing, or ' +
          'the event loop stayed blocked (stalls over half of the last 10 s), the default runtime image ' +
          'is missing on the Docker engine (`images` names every missing one), or the ' +
          'replica is full (capacity: a limit refuses new sessions); each check says why. ' +
          '`for=balancer` (what HAProxy checks) leaves the database out: every replica shares it, so its ' +
          'outage would take them all out together, while each still answers 503 STORAGE_UNAVAILABLE itself.',
        security: [],
        querystring: Type.Object({
          for: Type.Optional(
            Type.Literal('balancer', {
              description: 'The checks that tell replicas apart: all but the shared database',
            }),
          ),
        }),
        response: {
          200: Type.Object({ ready: Type.Boolean(), checks: Type.Record(Type.String(), Check) }),
          503: Type.Object({ ready: Type.Boolean(), checks: Type.Record(Type.String(), Check) }),
        },
      },
    },
    async (request, reply) => {
      const { db, workspaces } = app.services;
      const checks: Record<string, Static<typeof Check>> = {};
      if (request.query.for !== 'balancer') {
        try {
          await db.checkWritable();
          checks.database = { ok: true };
        } catch (err) {
          checks.database = { ok: false, detail: (err as Error).message };
        }
      }
      try {
        await fs.access(workspaces.baseDir, constants.W_OK);
        checks.workspaces = { ok: true };
      } catch {
        checks.workspaces = { ok: false, detail: 'workspace directory is not writable' };
      }
      // A loop blocked (or saturated) in the last 10 s serves every session late: take this replica out.
      const loop = app.services.eventLoop.state();
      checks.eventLoop = loop.blocked
        ? {
            ok: false,
            detail: `the event loop stays blocked: stalls over half of the last 10 s, the longest ${Math.round(loop.maxStallMs)} ms (utilisation ${loop.utilization.toFixed(2)})`,
          }
        : {
            ok: true,
            detail: `utilisation ${loop.utilization.toFixed(2)}, longest stall ${Math.round(loop.maxStallMs)} ms`,
          };
      const floors = app.services.config.disk;
      try {
        const disk = await diskState(app.services.config.dataDir);
        const short = [
          disk.freeBytes < floors.minFreeBytes
            ? `${disk.freeBytes} bytes free (floor ${floors.minFreeBytes})`
            : '',
          disk.freeInodes < floors.minFreeInodes
            ? `${disk.freeInodes} inodes free (floor ${floors.minFreeInodes})`
            : '',
        ].filter(Boolean);
        checks.disk = short.length
          ? { ok: false, detail: `the data filesystem is nearly full: ${short.join(', ')}` }
          : { ok: true, detail: `${disk.freeBytes} bytes and ${disk.freeInodes} inodes free` };
      } catch (err) {
        checks.disk = {
          ok: false,
          detail: `cannot read the data filesystem's state: ${(err as Error).message}`,
        };
      }
      const sandbox = app.services.runner.status;
      checks.sandbox = {
        // auto without bwrap disables execution, as configured; a backend required by name and missing is a fault.
        ok:
          sandbox.available ||
          app.services.config.sandbox === 'auto' ||
          app.services.config.sandbox === 'none',
        backend: sandbox.backend,
        isolated: sandbox.isolated,
        executionEnabled: sandbox.available,
        detail: sandbox.detail,
      };
      const images = await imagesCheck(app.services.runtimes.backend, app.services.config);
      if (images) checks.images = images;
      // Full: new sessions would be refused here, so a balancer sends them elsewhere (a session it has
      // still reaches its owner: another replica forwards to it).
      try {
        const report = await app.services.capacity.report();
        const full = Capacity.fullLimits(report);
        checks.capacity = full.length
          ? {
              ok: false,
              full: true,
              detail: `full: ${full.map((name) => `${name} ${report[name].used}/${report[name].limit}`).join(', ')}`,
            }
          : {
              ok: true,
              full: false,
              detail: `sessions ${report.sessions.used}/${report.sessions.limit}, runtimes ${report.runtimes.used}/${report.runtimes.limit}`,
            };
      } catch (err) {
        // The session count is read from the shared database: for a balancer that is no reason to take
        // this replica out (every replica shares the fault; its own answers carry STORAGE_UNAVAILABLE).
        checks.capacity = {
          ok: request.query.for === 'balancer',
          detail: `cannot read the capacity: ${(err as Error).message}`,
        };
      }
      const ready = Object.values(checks).every((c) => c.ok);
      return reply.code(ready ? 200 : 503).send({ ready, checks });
    },
  );
}

/**
 * The runtime images (docker): every configured image the engine lacks is named; only the default one's
 * absence makes the replica unready (no session without an image of its own could run), since a missing
 * image of one profile leaves the others served. Undefined: the backend has no images to check.
 */
async function imagesCheck(
  backend: RuntimeBackend,
  config: Config,
): Promise<Static<typeof Check> | undefined> {
  if (!backend.missingImages) return undefined;
  try {
    const missing = await backend.missingImages();
    if (missing.length === 0) return { ok: true, missing: [] };
    const defaultKey = config.containers?.defaultImage;
    return {
      ok: !missing.some(({ key }) => key === defaultKey),
      missing: missing.map(({ image }) => image),
      detail: `missing on the Docker engine: ${missing.map(({ key, image }) => `${image} (key ${key})`).join(', ')}; build them with scripts/build-runtime-images.sh`,
    };
  } catch (err) {
    return { ok: false, detail: `cannot ask the engine for the images: ${(err as Error).message}` };
  }
}
