import type { FieldErrors } from '@app/schemas';
import type { Em } from '../../db/database.js';
import type { UploadedFile } from '../uploads/uploads.js';
import { IMAGE_TYPE_MESSAGE, sniffImage, type UploadStore } from '../uploads/uploads.js';

/*
 * Banner images of collabs and campaigns: `collab[banner_image]` / `campaign[banner_image]` in a
 * multipart request (the size limit is enforced while the form is read), checked by content.
 */

/** Adds the `banner_image` error to `errors` when an uploaded banner is not an accepted image. */
export function checkBanner(file: UploadedFile | undefined, errors: FieldErrors): void {
  if (file && !sniffImage(file.data)) errors.banner_image = [IMAGE_TYPE_MESSAGE];
}

/**
 * What happens to the stored banner on update: a new file replaces it, `purge_banner_image`
 * "1" removes it, otherwise it stays.
 */
export function bannerChange(
  file: UploadedFile | undefined,
  purge: '0' | '1' | undefined,
): 'replace' | 'purge' | 'keep' {
  if (file) return 'replace';
  return purge === '1' ? 'purge' : 'keep';
}

/**
 * Runs `update` (find and lock the row, check and assign the fields) in a transaction and swaps
 * the banner file with it: the new file is saved before the commit and removed again if anything
 * fails; the old file goes only once the row no longer names it.
 */
export async function updateWithBanner<T extends { bannerImage?: string | null }>(
  em: Em,
  store: UploadStore,
  banner: { file: UploadedFile | undefined; purge: '0' | '1' | undefined },
  update: (tem: Em) => Promise<T>,
): Promise<T> {
  const change = bannerChange(banner.file, banner.purge);
  let saved: string | null = null;
  let previous: string | null = null;
  try {
    const row = await em.transactional(async (tem) => {
      const found = await update(tem);
      if (change !== 'keep') {
        previous = found.bannerImage ?? null;
        saved = banner.file ? await store.save(banner.file) : null;
        found.bannerImage = saved;
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
