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

/**
 * Stores `file` (if any) and runs `create` with its stored name; when `create` fails, the file is
 * removed again.
 */
export async function createWithAttachment<T>(
  store: UploadStore,
  file: UploadedFile | undefined,
  create: (stored: string | null) => Promise<T>,
): Promise<T> {
  const stored = file ? await store.save(file) : null;
  try {
    return await create(stored);
  } catch (error) {
    await store.remove(stored);
    throw error;
  }
}

/**
 * Runs `update` (find and lock the row, check and assign the fields) in a transaction and swaps
 * the file in `column` with it: the new file is saved before the commit and removed again if
 * anything fails; the old one goes once the row no longer names it.
 */
export async function updateWithAttachment<K extends string, T extends { [key in K]?: string | null }>(
  em: Em,
  store: UploadStore,
  column: K,
  change: { file: UploadedFile | undefined; purge: '0' | '1' | undefined },
  update: (tem: Em) => Promise<T>,
): Promise<T> {
  const kind = attachmentChange(change.file, change.purge);
  let saved: string | null = null;
  let previous: string | null = null;
  try {
    const row = await em.transactional(async (tem) => {
      const found = await update(tem);
      if (kind !== 'keep') {
        previous = found[column] ?? null;
        saved = change.file ? await store.save(change.file) : null;
        (found as { [key in K]?: string | null })[column] = saved;
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
