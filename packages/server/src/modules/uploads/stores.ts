import type { StorageLocation } from '../../config.js';
import { DirectoryStore } from './directory-store.js';
import { S3Store } from './s3-store.js';
import type { StoreLogger, UploadStore } from './uploads.js';

/** The store `location` names (`MARKETPLACE_STORAGE_URL`, or the data directory's `uploads`). */
export function createUploadStore(location: StorageLocation, log: StoreLogger): UploadStore {
  return location.driver === 's3' ? new S3Store(location, log) : new DirectoryStore(location.dir, log);
}
