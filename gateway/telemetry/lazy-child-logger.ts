// A request's logger, made only when the request logs (issue 45). Fastify gives every request a
// child of the application logger bound to its request id; pino builds that child (bindings,
// serializers, redaction) at once, about 3 KiB per request, though a request that goes well logs
// nothing. This stands in for the child and builds it on the first line written.
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type Options = Parameters<FastifyBaseLogger['child']>[1];
type LogFn = FastifyBaseLogger['info'];

class LazyChildLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: Options,
  ) {}

  private real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.options?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: Parameters<LogFn>): void {
    this.real().fatal(...args);
  }

  error(...args: Parameters<LogFn>): void {
    this.real().error(...args);
  }

  warn(...args: Parameters<LogFn>): void {
    this.real().warn(...args);
  }

  info(...args: Parameters<LogFn>): void {
    this.real().info(...args);
  }

  debug(...args: Parameters<LogFn>): void {
    this.real().debug(...args);
  }

  trace(...args: Parameters<LogFn>): void {
    this.real().trace(...args);
  }

  silent(...args: Parameters<LogFn>): void {
    this.real().silent(...args);
  }

  child(bindings: Bindings, options?: Options): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: the request's child, built when it first writes. */
export function lazyChildLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: Options,
): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, options);
}
