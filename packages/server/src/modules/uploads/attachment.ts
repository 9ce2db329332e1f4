import type { FieldErrors } from '@app/schemas';
import type { Em } from '../../db/database.js';
import type { UploadedFile, UploadStore } from './uploads.js';
import { IMAGE_TYPE_MESSAGE, sniffImage } from './uploads.js';

/*
 * Images attached to a row: an organization's `logo`, a collab's or campaign's `banner_image`.
 * One rule for all three: the file is checked by content, stored before the row that names it is
 * committed, removed again when the write fails, and the file it replaces goes only once the
 * committed row no longer names it. A failed request leaves no file behind and no row points to a
 * missing one.
 */

/** Adds `field`'s error to `errors` when an uploaded file is not an accepted image. */
export function checkImage(field: string, file: UploadedFile | undefined, errors: FieldErrors): void {
  if (file && !sniffImage(file.data)) errors[field] = [IMAGE_TYPE_MESSAGE];
}

/**
 * What happens to the attached file on update: a new file replaces it, the purge flag "1"
 * (`purge_logo`, `purge_banner_image`) removes it, otherwise it stays.
 */
export function attachmentChange(
  file: UploadedFile | undefined,
  purge: '0' | '1' | undefined,
): 'replace' | 'purge' | 'keep' {
  if (file) return 'replace';
  return purge === '1' ? 'purge' : 'keep';
}

/** An image as its row keeps it: the stored upload's name and its size in bytes. */
export interface StoredImage {
  name: string;
  bytes: number;
}

/**
 * Stores `file` (if any) and runs `create` with its stored name and size; when `create` fails, the
 * file is removed again.
 */
export async function createWithAttachment<T>(
  store: UploadStore,
  file: UploadedFile | undefined,
  create: (stored: StoredImage | null) => Promise<T>,
): Promise<T> {
  const stored = file ? { name: await store.save(file), bytes: file.data.length } : null;
  try {
    return await create(stored);
  } catch (error) {
    await store.remove(stored?.name ?? null);
    throw error;
  }
}

/** A row's two columns of an attached image: the stored name and the size in bytes. */
export interface ImageColumns<K extends string, B extends string> {
  name: K;
  bytes: B;
}

/**
 * Runs `update` (find and lock the row, check and assign the fields) in a transaction and swaps
 * the file in `columns` with it: `checkBytes` is given the bytes the change adds and removes (the
 * organization's limit of image bytes), the new file is saved before the commit and removed again
 * if anything fails; the old one goes once the row no longer names it.
 */
export async function updateWithAttachment<
  K extends string,
  B extends string,
  T extends { [key in K]?: string | null } & { [key in B]?: number | null },
>(
  em: Em,
  store: UploadStore,
  columns: ImageColumns<K, B>,
  change: { file: UploadedFile | undefined; purge: '0' | '1' | undefined },
  update: (tem: Em) => Promise<T>,
  checkBytes: (tem: Em, change: { added: number; removed: number }) => Promise<void>,
): Promise<T> {
  const kind = attachmentChange(change.file, change.purge);
  let saved: string | null = null;
  let previous: string | null = null;
  try {
    const row = await em.transactional(async (tem) => {
      const found = await update(tem);
      if (kind !== 'keep') {
        const bytes = change.file?.data.length ?? null;
        await checkBytes(tem, { added: bytes ?? 0, removed: found[columns.bytes] ?? 0 });
        previous = found[columns.name] ?? null;
        saved = change.file ? await store.save(change.file) : null;
        (found as { [key in K]?: string | null })[columns.name] = saved;
        (found as { [key in B]?: number | null })[columns.bytes] = bytes;
      }
      return found;
    });
    await store.remove(previous);
    return row;
  } catch (error) {
    await store.remove(saved);
    throw error;
  }
}
