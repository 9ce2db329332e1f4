import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Image types accepted for logos and banners, recognised by their first bytes. */
const SIGNATURES: Array<{ ext: string; type: string; test: (b: Buffer) => boolean }> = [
  {
    ext: 'png',
    type: 'image/png',
    test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  {
    ext: 'jpg',
    type: 'image/jpeg',
    test: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  },
  { ext: 'gif', type: 'image/gif', test: (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString('latin1')) },
  {
    ext: 'webp',
    type: 'image/webp',
    test: (b) =>
      b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

const NAME = /^[A-Za-z0-9_-]{32}\.(png|jpg|gif|webp)$/;

/** A file received in a multipart request, held in memory (uploads are a few MiB at most). */
export interface UploadedFile {
  data: Buffer;
  filename: string;
  mimetype: string;
}

export const IMAGE_TYPE_MESSAGE = 'must be a PNG, JPEG, WebP or GIF image';

/** The image type of a file by its content, or null when it is not an accepted image. */
export const sniffImage = (data: Buffer) => SIGNATURES.find((s) => s.test(data)) ?? null;

/** Stores uploaded images under `dataDir/uploads` with unguessable names. */
export class UploadStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'uploads');
  }

  /** Saves an image already checked by {@link sniffImage}; returns its stored name. */
  async save(file: UploadedFile): Promise<string> {
    const kind = sniffImage(file.data);
    if (!kind) throw new Error('not an accepted image');
    await mkdir(this.dir, { recursive: true });
    const name = `${randomBytes(24).toString('base64url')}.${kind.ext}`;
    await writeFile(join(this.dir, name), file.data, { flag: 'wx' });
    return name;
  }

  async remove(name: string | null | undefined): Promise<void> {
    if (name && NAME.test(name)) await rm(join(this.dir, name), { force: true });
  }

  /** Removes every stored upload (the sandbox reset); files this store did not name are left alone. */
  async clear(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    await Promise.all(names.filter((name) => NAME.test(name)).map((name) => this.remove(name)));
  }

  /** The bytes and type of a stored upload, or null (also for any name we never produced). */
  async read(name: string): Promise<{ data: Buffer; type: string } | null> {
    if (!NAME.test(name)) return null;
    try {
      const data = await readFile(join(this.dir, name));
      return { data, type: sniffImage(data)?.type ?? 'application/octet-stream' };
    } catch {
      return null;
    }
  }

  /** Absolute URL of a stored upload. */
  static urlOf(baseUrl: string, name: string): string {
    return `${baseUrl}/uploads/${name}`;
  }
}
