/**
 * The load generator, run in a worker thread so that its own work does not count as the server's
 * event-loop delay: autocannon against one URL on loopback, bounded by a duration, reporting
 * every response's status and latency.
 */
import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';

export interface LoadOptions {
  /** `http://127.0.0.1:<port>`: loopback only. */
  url: string;
  path: string;
  token: string;
  connections: number;
  /** Seconds of load. */
  duration: number;
  /** Seconds autocannon waits for a response before counting a timeout. */
  timeout: number;
}

export interface LoadResult {
  requests: number;
  statuses: Record<string, number>;
  /** Latencies (ms) by status. */
  latencies: Record<string, number[]>;
  /** 503s that carried `Retry-After: 1`. */
  retryAfter: number;
  errors: number;
  timeouts: number;
}

const options = workerData as LoadOptions;
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(options.url)) throw new Error(`not a loopback URL: ${options.url}`);

let retryAfter = 0;
const latencies: Record<string, number[]> = {};
const instance = autocannon(
  {
    url: options.url,
    connections: options.connections,
    duration: options.duration,
    timeout: options.timeout,
    requests: [
      {
        method: 'GET',
        path: options.path,
        headers: { accept: 'application/json', authorization: `Bearer ${options.token}` },
        onResponse: (status, _body, _context, headers) => {
          if (status === 503 && headers?.['retry-after'] === '1') retryAfter += 1;
        },
      },
    ],
  },
  (error, result: autocannon.Result) => {
    if (error) throw error;
    const statuses = Object.fromEntries(
      Object.entries(latencies).map(([status, list]) => [status, list.length]),
    );
    const report: LoadResult = {
      requests: Object.values(statuses).reduce((sum, n) => sum + n, 0),
      statuses,
      latencies,
      retryAfter,
      errors: result.errors,
      timeouts: result.timeouts,
    };
    parentPort?.postMessage(report);
  },
);
instance.on('response', (_client, statusCode, _bytes, responseTime) => {
  const list = latencies[statusCode] ?? [];
  list.push(responseTime);
  latencies[statusCode] = list;
});
