// buildApp(config): the whole service as a Fastify instance — services, auth, error envelope, OpenAPI
// and routes. No side effects at import; tests build as many apps as they like, each on its own data dir.
import { randomBytes } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { registerAuth } from './http/auth.js';
import { registerHostCheck } from './http/host-check.js';
import { registerErrorEnvelope, sendFrameworkError } from './http/error-envelope.js';
import { registerOpenApi } from './http/openapi.js';
import { loggerOptions, registerRequestLog } from './http/request-log.js';
import { lazyChildLogger } from './http/request-logger.js';
import { activeTraceFields, registerRequestTrace } from './http/request-trace.js';
import type { Tracing } from './ops/trace.js';
import { schemaValidatorCompiler } from './http/validator-compiler.js';
import consoleRoutes from './console/routes.js';
import approvalRoutes from './policies/approvals/routes.js';
import archiveRoutes from './routes/archive.js';
import auditRoutes from './routes/audit.js';
import blobRoutes from './routes/blobs.js';
import evalRoutes from './routes/evals.js';
import eventRoutes from './routes/events.js';
import fileRoutes from './routes/files.js';
import batchCallRoutes from './routes/batch-calls.js';
import capacityRoutes from './routes/capacity.js';
import categoryRoutes from './routes/categories.js';
import toolSwitchRoutes from './policies/tool-switches/routes.js';
import healthRoutes from './routes/health.js';
import configSchemaRoutes from './routes/config-schema.js';
import mcpRoutes from './routes/mcp.js';
import metricsRoutes from './routes/metrics.js';
import sessionRoutes from './routes/sessions.js';
import statsRoutes from './routes/stats.js';
import toolCallRoutes from './routes/tool-calls.js';
import todoRoutes from './routes/todos.js';
import interactiveRoutes from './routes/interactive.js';
import portRoutes from './routes/ports.js';
import previewRoutes from './routes/previews.js';
import { registerPreviewUpgrade } from './http/preview-upgrade.js';
import { previewHostRewrite } from './http/preview-host.js';
import toolRoutes from './routes/tools.js';
import checkpointRoutes from './routes/checkpoints.js';
import changeRoutes from './routes/changes.js';
import forkRoutes from './routes/fork.js';
import validateCallRoutes from './routes/validate-call.js';
import { createServices, type ServiceOptions, type Services } from './services.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export interface BuildOptions extends ServiceOptions {
  /** false silences request logs (tests); default: pino at config.logLevel. */
  logger?: boolean;
  /** Where the log's JSON lines go instead of stdout (tests read what the app logs). */
  logStream?: { write(line: string): void };
  /** The log goes to an interactive terminal: LOG_FORMAT=auto then prints readable lines. */
  terminal?: boolean;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  // Request ids need to be unique, not secret: a random prefix per app and a counter.
  const requestIdPrefix = `req_${randomBytes(6).toString('hex')}`;
  let requestSequence = 0;
  // The tracing is made with the services, after the logger; the mixin reads it once it exists. With
  // tracing off there is no mixin at all.
  const late: { tracing?: Tracing } = {};
  const traceFields = config.telemetry.endpoint ? () => activeTraceFields(late.tracing) : undefined;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            ...loggerOptions(
              config.logLevel,
              traceFields,
              config.logFormat === 'pretty' || (config.logFormat === 'auto' && options.terminal === true),
            ),
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    // Our own onResponse hook writes the one line per request (with session and tool).
    logController: new LogController({ disableRequestLogging: true }),
    // Each request's child logger is made only if something logs through it (request-logger.ts).
    ...(options.logger === false ? {} : { childLoggerFactory: lazyChildLogger }),
    bodyLimit: config.limits.bodyLimitBytes,
    // The previews' host-name form: a request for P-<key>.<preview domain> is routed to the preview.
    ...(config.preview.domain ? { rewriteUrl: previewHostRewrite(config.preview.domain) } : {}),
    frameworkErrors: sendFrameworkError,
    // Honour a caller's x-request-id when it is sane, so logs join up across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given)
        ? given
        : `${requestIdPrefix}${(requestSequence++).toString(36)}`;
    },
  });
  app.setValidatorCompiler(schemaValidatorCompiler);
  // Response schemas document the API; serialising with plain JSON means a schema can never silently drop
  // or coerce a field a client relies on.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  const services = await createServices(config, app.log, options);
  late.tracing = services.tracing;
  app.decorate('services', services);
  app.addHook('onClose', async () => services.close());

  registerErrorEnvelope(app);
  registerRequestLog(app, options.logger !== false && config.logLevel !== 'silent');
  // Before auth and the routes: the request span covers authentication, and its handlers get wrapped.
  registerRequestTrace(app, services.tracing);
  // Before auth: a request for another site's name is refused whatever token it carries.
  registerHostCheck(app, { listenHost: config.host, ...config.http, previewDomain: config.preview.domain });
  registerAuth(app);
  // After auth (bad tokens are refused where the caller's address is seen): a session's requests go
  // to the replica that owns it.
  // Imported only then: a single process never loads the proxy (undici) at all.
  if (services.replica) {
    const { registerReplicaForward } = await import('./http/replica-forward.js');
    await registerReplicaForward(app, {
      ...services.replica,
      handOff: async (id) => services.runtimes.get(id)?.detach(),
    });
  }
  await registerOpenApi(
    app,
    services.registry.list().map((entry) => entry.tool),
  );

  await app.register(healthRoutes);
  await app.register(configSchemaRoutes);
  await app.register(sessionRoutes);
  await app.register(toolRoutes);
  await app.register(categoryRoutes);
  await app.register(toolSwitchRoutes);
  await app.register(toolCallRoutes);
  await app.register(validateCallRoutes);
  await app.register(batchCallRoutes);
  await app.register(mcpRoutes);
  await app.register(approvalRoutes);
  await app.register(auditRoutes);
  await app.register(statsRoutes);
  await app.register(capacityRoutes);
  await app.register(eventRoutes);
  await app.register(fileRoutes);
  await app.register(archiveRoutes);
  await app.register(blobRoutes);
  await app.register(metricsRoutes);
  await app.register(checkpointRoutes);
  await app.register(changeRoutes);
  await app.register(forkRoutes);
  await app.register(todoRoutes);
  await app.register(interactiveRoutes);
  await app.register(portRoutes);
  await app.register(previewRoutes);
  registerPreviewUpgrade(app);
  await app.register(evalRoutes);
  await app.register(consoleRoutes);
  return app;
}
