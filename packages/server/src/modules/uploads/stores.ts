import { ConfigError, type StorageLocation } from '../../config.js';
import { DirectoryStore } from './directory-store.js';
import type { StoreLogger, UploadStore } from './uploads.js';

/** The AWS SDK's S3 client, an optional peer dependency of the server: installed by those who use S3. */
const S3_CLIENT = '@aws-sdk/client-s3';

/**
 * The store `location` names (`MARKETPLACE_STORAGE_URL`, or the data directory's `uploads`). The
 * S3 driver, and with it the AWS SDK, is loaded only for an `s3://` location; without the
 * package the set-up stops with one line that says what to install.
 */
export async function createUploadStore(location: StorageLocation, log: StoreLogger): Promise<UploadStore> {
  if (location.driver !== 's3') return new DirectoryStore(location.dir, log);
  const { S3Store } = await loadS3Driver();
  return new S3Store(location, log);
}

/**
 * The S3 driver's module (and the AWS SDK with it). Without the package, the set-up error that
 * says what to install: `serve` asks for it before it opens the database, as it checks the port.
 */
export function loadS3Driver(): Promise<typeof import('./s3-store.js')> {
  return import('./s3-store.js').catch((error: unknown) => {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String(error).includes(S3_CLIENT))
      throw new ConfigError(
        `an s3:// store needs the optional package ${S3_CLIENT}, which is not installed: npm install ${S3_CLIENT}@3`,
      );
    throw error;
  });
}

/**
 * Copies every upload of `from` that `to` does not hold yet (`marketplace-server storage copy`).
 * Names are never reused for other content, so one already there is the same upload: running it
 * again copies only what is new, and a copy interrupted half-way is finished by the next run.
 */
export async function copyUploads(
  from: UploadStore,
  to: UploadStore,
  onCopied: (name: string) => void = () => {},
): Promise<{ copied: number; present: number }> {
  const there = new Set(await to.list());
  let copied = 0;
  for (const name of await from.list()) {
    if (there.has(name)) continue;
    const upload = await from.read(name);
    if (!upload) continue; // removed since it was listed
    await to.put(name, Buffer.concat(await upload.body.toArray()));
    copied += 1;
    onCopied(name);
  }
  return { copied, present: there.size };
}
