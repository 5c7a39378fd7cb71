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

  /** A line below the level is dropped without building the child (pino's own check, when the
   * child would have the parent's level). Pino's name, so `logsAt` reads either logger alike. */
  isLevelEnabled(level: string): boolean {
    if (this.#child !== undefined || this.options?.level !== undefined) return true;
    const parent = this.parent as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
    return parent.isLevelEnabled?.(level) ?? true;
  }

  get level(): string {
    return this.#child?.level ?? this.options?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: Parameters<LogFn>): void {
    if (this.isLevelEnabled('fatal')) this.real().fatal(...args);
  }

  error(...args: Parameters<LogFn>): void {
    if (this.isLevelEnabled('error')) this.real().error(...args);
  }

  warn(...args: Parameters<LogFn>): void {
    if (this.isLevelEnabled('warn')) this.real().warn(...args);
  }

  info(...args: Parameters<LogFn>): void {
    if (this.isLevelEnabled('info')) this.real().info(...args);
  }

  debug(...args: Parameters<LogFn>): void {
    if (this.isLevelEnabled('debug')) this.real().debug(...args);
  }

  trace(...args: Parameters<LogFn>): void {
    if (this.isLevelEnabled('trace')) this.real().trace(...args);
  }

  silent(): void {
    // Writes nothing, at any level.
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

/** Whether `log` writes at `level`: a caller that builds a line's object first asks this (the access
 * log line of every request, issue 45). True for a logger that cannot say. */
export function logsAt(log: FastifyBaseLogger, level: string): boolean {
  const asked = log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
  return asked.isLevelEnabled?.(level) ?? true;
}
