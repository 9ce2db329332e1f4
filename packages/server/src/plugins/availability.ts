import underPressure from '@fastify/under-pressure';
import { ConnectionException } from '@mikro-orm/core';
import type { FastifyInstance } from 'fastify';
import { unavailable } from '../http/errors.js';

/** Codes of a PostgreSQL that is gone, starting, stopping or out of connections. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08006',
]);

const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'connection terminated',
  'Client has encountered a connection error',
  'PGlite is closed',
  'Cannot use a pool after calling end',
  'Client was closed',
  'is not currently accepting connections',
];

/** Whether an error says the database cannot be reached right now (as opposed to a bug). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ConnectionException) return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  }
  return false;
}

/**
 * Under overload (event-loop delay), answers `503` with `Retry-After: 1` at once instead of
 * queueing work that would time out; never `429`.
 */
export async function registerOverloadProtection(
  app: FastifyInstance,
  options: { maxEventLoopDelay: number; sampleInterval?: number } = { maxEventLoopDelay: 1_000 },
): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelay,
    ...(options.sampleInterval !== undefined && { sampleInterval: options.sampleInterval }),
    pressureHandler: (_request, reply) => {
      const error = unavailable();
      void reply.code(error.statusCode).headers(error.headers).send(error.body);
    },
  });
}
