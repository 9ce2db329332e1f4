/**
 * File arguments (`logo`, `banner_image`): a tool reads a local path for the model, so the path is
 * checked before a byte is read. Only a regular file, at most `maxBytes` long, whose real path (every
 * symlink resolved) lies inside one of the allowed directories. A refusal is a
 * `RequestValidationError` on the field: the call fails as an `isError` result and nothing is sent.
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve } from 'node:path';
import { RequestValidationError } from '@app/sdk';
import type { FileReader } from '@app/sdk/operations';

/** The API's own upload limit (`MARKETPLACE_MAX_UPLOAD_BYTES`, decisions §2): 5 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;

const TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
};

const refuse = (field: string, message: string): never => {
  throw new RequestValidationError({ [field]: [message] });
};

/** `child` is `parent` or inside it (both real, absolute paths). */
function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real paths of the directories that exist (one that does not holds no file). */
async function realDirs(dirs: readonly string[]): Promise<string[]> {
  const real = await Promise.all(dirs.map((dir) => realpath(resolve(dir)).catch(() => undefined)));
  return real.filter((dir): dir is string => dir !== undefined);
}

/**
 * A file reader for `callOperation`: `data:` URLs up to `maxBytes`, and local files under the
 * rules above. Relative paths are relative to the working directory.
 */
export function guardedFileReader({
  allowDirs,
  maxBytes,
}: {
  allowDirs: readonly string[];
  maxBytes: number;
}): FileReader {
  const tooLarge = `is larger than ${maxBytes} bytes`;
  return async (value, field) => {
    if (value.startsWith('data:')) {
      // Base64 is 4 characters for 3 bytes: a URL this long is too large before it is decoded.
      const base64 = /^data:[^,]*;base64,/i.test(value);
      if (base64 && value.length > Math.ceil(maxBytes / 3) * 4 + 1024) refuse(field, `data: URL ${tooLarge}`);
      const blob = await fetch(value)
        .then((response) => response.blob())
        .catch(() => refuse(field, 'is not a valid data: URL'));
      if (blob.size > maxBytes) refuse(field, `data: URL ${tooLarge}`);
      return blob;
    }
    const real = await realpath(value).catch(() => refuse(field, `${value} cannot be read (no such file)`));
    if (!(await realDirs(allowDirs)).some((dir) => isInside(dir, real)))
      refuse(field, `${value} is outside the allowed directories (--allow-dir)`);
    // Checked on the path first: opening a FIFO or a device could block or never end.
    const kind = await stat(real).catch(() => refuse(field, `${value} cannot be read`));
    if (!kind.isFile()) refuse(field, `${value} is not a regular file`);
    // O_NOFOLLOW: the path was resolved above; a symlink swapped in since then is not followed.
    // O_NONBLOCK: a FIFO swapped in does not block the open.
    const handle = await open(
      real,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    ).catch(() => refuse(field, `${value} cannot be read`));
    try {
      const info = await handle.stat();
      if (!info.isFile()) refuse(field, `${value} is not a regular file`);
      if (info.size > maxBytes) refuse(field, `${value} ${tooLarge}`);
      // Read at most one byte past the size seen: a file that grew since is refused, not read on.
      const buffer = new Uint8Array(info.size + 1);
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length > info.size) refuse(field, `${value} changed while it was read`);
      return new Blob([buffer.subarray(0, length)], { type: TYPES[extname(value).toLowerCase()] ?? '' });
    } finally {
      await handle.close();
    }
  };
}
