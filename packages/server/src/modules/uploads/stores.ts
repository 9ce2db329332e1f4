import type { StorageLocation } from '../../config.js';
import { DirectoryStore } from './directory-store.js';
import { S3Store } from './s3-store.js';
import type { StoreLogger, UploadStore } from './uploads.js';

/** The store `location` names (`MARKETPLACE_STORAGE_URL`, or the data directory's `uploads`). */
export function createUploadStore(location: StorageLocation, log: StoreLogger): UploadStore {
  return location.driver === 's3' ? new S3Store(location, log) : new DirectoryStore(location.dir, log);
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
