// Each request's logger (request.log), made only when something logs through it. Fastify gives every
// request a child of the app's logger carrying its request id; pino's child() serialises the bindings
// and builds an object per request, about 1% of a tool call's cost in the service's profile, while
// almost no request logs anything (the one line per request is written by request-log.ts). This
// stands in for the child and makes it on first use, with the same bindings and options, so a line
// logged through it is the one the child would have written.
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;

type LogArgs = Parameters<FastifyBaseLogger['info']>;

export class LazyRequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly childBindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.childBindings, this.options));
  }

  get level(): FastifyBaseLogger['level'] {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: FastifyBaseLogger['level']) {
    this.logger.level = level;
  }

  fatal(...args: LogArgs): void {
    this.logger.fatal(...args);
  }

  error(...args: LogArgs): void {
    this.logger.error(...args);
  }

  warn(...args: LogArgs): void {
    this.logger.warn(...args);
  }

  info(...args: LogArgs): void {
    this.logger.info(...args);
  }

  debug(...args: LogArgs): void {
    this.logger.debug(...args);
  }

  trace(...args: LogArgs): void {
    this.logger.trace(...args);
  }

  silent(...args: LogArgs): void {
    this.logger.silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: the request's logger, made when first used. */
export const lazyChildLogger = (
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger => new LazyRequestLogger(logger, bindings, options);
