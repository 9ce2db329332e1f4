import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  isUploadName,
  newUploadName,
  type StoredUpload,
  type StoreLogger,
  storeUnavailable,
  typeOfUpload,
  type UploadedFile,
  type UploadStore,
} from './uploads.js';

const failed = storeUnavailable;

const code = (error: unknown) => (error as { code?: unknown }).code;

/**
 * Uploads as files of one directory (`MARKETPLACE_DATA_DIR/uploads` by default): for a single
 * server, or replicas that share the directory (a network file system).
 */
export class DirectoryStore implements UploadStore {
  constructor(
    readonly dir: string,
    private readonly log: StoreLogger,
  ) {}

  get location() {
    return this.dir;
  }

  async save(file: UploadedFile): Promise<string> {
    const name = newUploadName(file.data);
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(join(this.dir, name), file.data, { flag: 'wx' });
    } catch (error) {
      throw failed('save an upload', error);
    }
    return name;
  }

  async put(name: string, data: Buffer): Promise<void> {
    if (!isUploadName(name)) throw new Error(`not an upload name: ${name}`);
    // Written aside and renamed, so a reader never sees half a file.
    const partial = join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.partial`);
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(partial, data);
      await rename(partial, join(this.dir, name));
    } catch (error) {
      await rm(partial, { force: true }).catch(() => {});
      throw failed('save an upload', error);
    }
  }

  async remove(name: string | null | undefined): Promise<void> {
    if (!name || !isUploadName(name)) return;
    try {
      await rm(join(this.dir, name), { force: true });
    } catch (error) {
      this.log.warn({ err: error, upload: name }, 'could not remove an upload; it is left unreferenced');
    }
  }

  async read(name: string): Promise<StoredUpload | null> {
    if (!isUploadName(name)) return null;
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(join(this.dir, name), 'r');
    } catch (error) {
      if (code(error) === 'ENOENT') return null;
      throw failed('read an upload', error);
    }
    try {
      const { size } = await handle.stat();
      return { body: handle.createReadStream(), type: typeOfUpload(name), length: size };
    } catch (error) {
      await handle.close();
      throw failed('read an upload', error);
    }
  }

  async list(): Promise<string[]> {
    try {
      return (await readdir(this.dir)).filter(isUploadName).sort();
    } catch (error) {
      if (code(error) === 'ENOENT') return [];
      throw failed('list the uploads', error);
    }
  }
}
