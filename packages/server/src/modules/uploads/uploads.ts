import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

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
  {
    ext: 'webp',
    type: 'image/webp',
    test: (b) =>
      b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
  { ext: 'gif', type: 'image/gif', test: (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString('latin1')) },
];

/** The media types of {@link SIGNATURES}, as a list (`image/png, image/jpeg, …`). */
export const IMAGE_TYPES = SIGNATURES.map((s) => s.type).join(', ');

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

/** A stored upload as served: its bytes as a stream, their type and length. */
export interface StoredUpload {
  body: Readable;
  type: string;
  length: number;
}

/** Where failures the request outlives are reported (a removal that did not happen). */
export interface StoreLogger {
  warn(details: object, message: string): void;
}

/**
 * Where uploaded images live, under unguessable names of {@link NAME}'s shape: a directory
 * (`DirectoryStore`) or an S3-compatible bucket (`S3Store`), chosen by `MARKETPLACE_STORAGE_URL`
 * (`createUploadStore`, stores.ts); both keep the rules below through `UploadDriver` (driver.ts).
 * Every replica of the server must see the same store. A store that cannot be reached makes
 * `save`, `put`, `read` and `list` throw `DependencyUnavailableError` (a `503`). Callers save an
 * object before the row that names it is committed and remove the old one only after, so a
 * failure leaves at worst an unreferenced object, never a row naming a missing one.
 */
export interface UploadStore {
  /** The directory or `s3://bucket/prefix`, for messages. */
  readonly location: string;
  /** Saves an image already checked by {@link sniffImage}; returns its stored name. */
  save(file: UploadedFile): Promise<string>;
  /** Stores bytes under a name of the store's shape, replacing any object of that name. */
  put(name: string, data: Buffer): Promise<void>;
  /**
   * Deletes an upload; a name we never produced, or one already gone, is no error. Best effort:
   * it runs after the row stopped naming the object, so a failure is logged (the object is left
   * unreferenced) and never fails the request.
   */
  remove(name: string | null | undefined): Promise<void>;
  /** A stored upload, or null (also for any name we never produced). */
  read(name: string): Promise<StoredUpload | null>;
  /** Names of every stored upload, sorted. */
  list(): Promise<string[]>;
}

/** Whether a name has the shape of the names {@link newUploadName} makes. */
export const isUploadName = (name: string) => NAME.test(name);

/** A fresh name for an image already checked by {@link sniffImage}. */
export function newUploadName(data: Buffer): string {
  const kind = sniffImage(data);
  if (!kind) throw new Error('not an accepted image');
  return `${randomBytes(24).toString('base64url')}.${kind.ext}`;
}

/** The type an upload is served with, from its name (whose extension came from its content). */
export function typeOfUpload(name: string): string {
  const ext = name.slice(name.lastIndexOf('.') + 1);
  return SIGNATURES.find((s) => s.ext === ext)?.type ?? 'application/octet-stream';
}

/** The files of a multipart request, by field name. */
export type UploadedFiles = Partial<Record<string, UploadedFile>>;

/** Absolute URL of a stored upload. */
export function uploadUrl(baseUrl: string, name: string): string {
  return `${baseUrl}/uploads/${name}`;
}
