import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { UploadDriver } from './driver.js';
import type { StoreLogger } from './uploads.js';

const code = (error: unknown) => (error as { code?: unknown }).code;

/**
 * Uploads as files of one directory (`MARKETPLACE_DATA_DIR/uploads` by default): for a single
 * server, or replicas that share the directory (a network file system). What an upload name may
 * be, failures as `503`s and the logged removal are `UploadDriver`'s.
 */
export class DirectoryStore extends UploadDriver {
  constructor(
    readonly dir: string,
    log: StoreLogger,
  ) {
    super(log);
  }

  get location() {
    return this.dir;
  }

  protected async write(name: string, data: Buffer, fresh: boolean): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // A fresh name is nobody else's: written in place, and never over an existing file.
    if (fresh) return writeFile(join(this.dir, name), data, { flag: 'wx' });
    // Written aside and renamed, so a reader never sees half a file.
    const partial = join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.partial`);
    try {
      await writeFile(partial, data);
      await rename(partial, join(this.dir, name));
    } catch (error) {
      await rm(partial, { force: true }).catch(() => {});
      throw error;
    }
  }

  protected async delete(name: string): Promise<void> {
    await rm(join(this.dir, name), { force: true });
  }

  protected async open(name: string): Promise<{ body: Readable; length: number } | null> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(join(this.dir, name), 'r');
    } catch (error) {
      if (code(error) === 'ENOENT') return null;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      return { body: handle.createReadStream(), length: size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  protected async names(): Promise<string[]> {
    try {
      return await readdir(this.dir);
    } catch (error) {
      if (code(error) === 'ENOENT') return [];
      throw error;
    }
  }
}
