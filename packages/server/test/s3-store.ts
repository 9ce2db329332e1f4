/**
 * An S3-compatible store for tests: `s3rver` on loopback, on a port of its own, keeping its
 * objects in a temporary directory, with the bucket `uploads`. Clients reach it with the standard
 * AWS environment (s3rver's fixed key pair), as a deployment would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { StorageLocation } from '../src/config.js';

export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

export interface TestS3 {
  /** `s3://uploads/<prefix>?endpoint=…&region=us-east-1&force_path_style=true` */
  url: string;
  endpoint: string;
  location: Extract<StorageLocation, { driver: 's3' }>;
  /** Stops the store (its objects stay in its directory until `remove`). */
  stop(): Promise<void>;
  /** Stops the store and deletes its directory. */
  remove(): Promise<void>;
}

export async function startS3(prefix = 'test'): Promise<TestS3> {
  Object.assign(process.env, S3RVER_CREDENTIALS);
  const dir = mkdtempSync(join(tmpdir(), 'mkt-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: 'uploads' }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  let running = true;
  const stop = async () => {
    if (running) await server.close();
    running = false;
  };
  return {
    url: `s3://uploads/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&force_path_style=true`,
    endpoint,
    location: {
      driver: 's3',
      bucket: 'uploads',
      prefix,
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
    },
    stop,
    remove: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
