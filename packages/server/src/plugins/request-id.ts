import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { REQUEST_ID_HEADER, REQUEST_ID_PATTERN } from '@app/schemas';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

/**
 * The id a client sent in `X-Request-Id`, when it is safe to log (1 to 128 of `A-Z a-z 0-9 . _ :
 * -`); `undefined` otherwise. It is never the request's id: two clients (or one client's retries)
 * may send the same value.
 */
export function clientRequestIdOf(request: IncomingMessage): string | undefined {
  const sent = request.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && REQUEST_ID_PATTERN.test(sent) ? sent : undefined;
}

/**
 * Fastify's request-id settings. The request's id (`reqId` on every log line, `X-Request-Id` on
 * the answer) is always the server's own, a fresh UUID per request. A client's safe
 * `X-Request-Id` is logged beside it as `clientRequestId` on every line of that request, so
 * both ids find the same lines. The header is set by the request lifecycle's `onSend`
 * (plugins/request-lifecycle.ts).
 */
export const requestIdOptions = {
  requestIdHeader: false,
  genReqId: () => randomUUID(),
  childLoggerFactory(logger, bindings, options, rawRequest) {
    const clientRequestId = clientRequestIdOf(rawRequest as IncomingMessage);
    const own = clientRequestId ? { ...bindings, clientRequestId } : bindings;
    // A level of the route's own, or a logger that cannot say which levels it writes: made now.
    if (options.level !== undefined || !hasLevelCheck(logger)) return logger.child(own, options);
    return new RequestLogger(logger, own, options) as unknown as FastifyBaseLogger;
  },
} satisfies Pick<FastifyServerOptions, 'requestIdHeader' | 'genReqId' | 'childLoggerFactory'>;

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type ChildArgs = Parameters<FastifyBaseLogger['child']>;
type LevelCheck = { isLevelEnabled(level: string): boolean };

const hasLevelCheck = (logger: FastifyBaseLogger): logger is FastifyBaseLogger & LevelCheck =>
  typeof (logger as Partial<LevelCheck>).isLevelEnabled === 'function';

/**
 * A request's logger, made on the request's first line at a level that is written: the same
 * pino child as before (its bindings, its options), made later. At `warn` a request that goes
 * well writes no line, and making the child (its bindings serialised) cost about 2 µs of every
 * request (docs/performance-log.md, issue #27 item 3). A class: its methods are shared, nothing is
 * allocated per request but the object itself.
 */
class RequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger & LevelCheck,
    private readonly bindings: ChildArgs[0],
    private readonly options: NonNullable<ChildArgs[1]>,
  ) {}

  get #logger(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  #write(level: Level, args: unknown[]): void {
    if (this.#child === undefined && !this.parent.isLevelEnabled(level)) return;
    const logger = this.#logger;
    (logger[level] as (...args: unknown[]) => void).apply(logger, args);
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  /** pino's own question, asked of the child once there is one. */
  isLevelEnabled(level: string): boolean {
    return (
      (
        (this.#child as (FastifyBaseLogger & Partial<LevelCheck>) | undefined) ?? this.parent
      ).isLevelEnabled?.(level) ?? true
    );
  }

  child(...args: ChildArgs): FastifyBaseLogger {
    return this.#logger.child(...args);
  }
}
