import type { FieldErrors } from '@app/schemas';
import type { UploadedFile } from '../../plugins/multipart.js';
import { IMAGE_TYPE_MESSAGE, sniffImage } from '../uploads/uploads.js';

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
