/**
 * File arguments (`logo`, `banner_image`): a tool reads a local path for the model, so the path is
 * checked before a byte is read. Only a regular file, at most `maxBytes` long, whose path as written
 * (resolved lexically, before the disk is asked) and real path (every symlink resolved) both lie
 * inside one of the allowed directories. A refusal is a
 * `RequestValidationError` on the field: the call fails as an `isError` result and nothing is sent.
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, parse, relative, resolve } from 'node:path';
import { RequestValidationError } from '@app/sdk';
import type { FileReader } from '@app/sdk/operations';
import { clip } from './text.js';

/** The API's own upload limit (`MARKETPLACE_MAX_UPLOAD_BYTES`, decisions §2): 5 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;

/**
 * The image types the API takes for a file field, by their first bytes (RIFF….WEBP: any 4 bytes in
 * between). A file that is none of them is refused here, before a byte of it is sent.
 */
const SIGNATURES: ReadonlyArray<{ type: string; bytes: ReadonlyArray<number | null> }> = [
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', bytes: [...'GIF8'].map((c) => c.charCodeAt(0)) },
  {
    type: 'image/webp',
    bytes: [...'RIFF', null, null, null, null, ...'WEBP'].map((c) => (c === null ? null : c.charCodeAt(0))),
  },
];

/** The image type of these bytes, or undefined when they are not an image the API takes. */
export function imageTypeOf(bytes: Uint8Array): string | undefined {
  return SIGNATURES.find(({ bytes: signature }) =>
    signature.every((byte, i) => byte === null || bytes[i] === byte),
  )?.type;
}

const NOT_AN_IMAGE = 'is not a PNG, JPEG, WebP or GIF image (checked here: nothing was sent)';

/**
 * The directories file arguments may be read from when none is given: the working directory,
 * unless it is the root or the home directory (hosts may start a server in either), where every
 * picture on the machine or of the user would be in reach: then none.
 */
export function defaultAllowDirs(cwd = process.cwd(), home = homedir()): string[] {
  const dir = resolve(cwd);
  return dir === parse(dir).root || dir === resolve(home) ? [] : [dir];
}

/**
 * A value that is not a readable path but looks like a file's bytes in base64 (long, and only
 * base64's characters): a model that read an image often passes it so, without the `data:` prefix.
 */
const looksLikeBase64 = (value: string) => value.length >= 64 && /^[A-Za-z0-9+/\r\n]+={0,2}$/.test(value);

const RAW_BASE64 =
  'looks like raw base64, not a file path: pass the image as a data: URL (data:image/png;base64,…)';

const refuse = (field: string, message: string): never => {
  throw new RequestValidationError({ [field]: [message] });
};

/** `child` is `parent` or inside it (both absolute, resolved paths). */
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
 * rules above. Relative paths are relative to the working directory (the server's, not the host's:
 * the refusal of one outside says so).
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
    // Messages name the value cut short: it may be megabytes.
    const shown = clip(value);
    if (value.startsWith('data:')) {
      // Base64 is 4 characters for 3 bytes: a URL this long is too large before it is decoded.
      const base64 = /^data:[^,]*;base64,/i.test(value);
      if (base64 && value.length > Math.ceil(maxBytes / 3) * 4 + 1024) refuse(field, `data: URL ${tooLarge}`);
      const blob = await fetch(value)
        .then((response) => response.blob())
        .catch(() => refuse(field, 'is not a valid data: URL'));
      if (blob.size > maxBytes) refuse(field, `data: URL ${tooLarge}`);
      const type = imageTypeOf(new Uint8Array(await blob.slice(0, 12).arrayBuffer()));
      if (!type) refuse(field, `data: URL ${NOT_AN_IMAGE}`);
      return new Blob([blob], { type });
    }
    if (allowDirs.length === 0)
      refuse(
        field,
        looksLikeBase64(value)
          ? `${shown} ${RAW_BASE64}`
          : `${shown} cannot be read: no directory is allowed for file arguments (the server runs in the root or the home directory); start marketplace-mcp with --allow-dir DIR, or give a data: URL`,
      );
    // The path as written is checked before the disk is asked anything about it: a path outside
    // has one answer whether it exists or not, so a model cannot probe which files exist.
    const given = allowDirs.map((dir) => resolve(dir));
    const realAllowed = await realDirs(allowDirs);
    const outside = () =>
      refuse(
        field,
        looksLikeBase64(value)
          ? `${shown} ${RAW_BASE64}`
          : `${shown} is outside the directories file arguments may be read from (${given.join(', ')}; --allow-dir): copy the file into one of them, or pass the image as a data: URL (data:image/png;base64,…)${isAbsolute(value) ? '' : `. A relative path is resolved against the MCP server's working directory, ${process.cwd()}`}`,
      );
    const lexical = resolve(value);
    if (![...given, ...realAllowed].some((dir) => isInside(dir, lexical))) outside();
    const real = await realpath(lexical).catch(() =>
      refuse(field, `${shown} ${looksLikeBase64(value) ? RAW_BASE64 : 'cannot be read (no such file)'}`),
    );
    // Checked again on the real path: a symlink inside cannot lead outside.
    if (!realAllowed.some((dir) => isInside(dir, real))) outside();
    // Checked on the path first: opening a FIFO or a device could block or never end.
    const kind = await stat(real).catch(() => refuse(field, `${shown} cannot be read`));
    if (!kind.isFile()) refuse(field, `${shown} is not a regular file`);
    // O_NOFOLLOW: the path was resolved above; a symlink swapped in since then is not followed.
    // O_NONBLOCK: a FIFO swapped in does not block the open.
    const handle = await open(
      real,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    ).catch(() => refuse(field, `${shown} cannot be read`));
    try {
      const info = await handle.stat();
      if (!info.isFile()) refuse(field, `${shown} is not a regular file`);
      if (info.size > maxBytes) refuse(field, `${shown} ${tooLarge}`);
      // Read at most one byte past the size seen: a file that grew since is refused, not read on.
      const buffer = new Uint8Array(info.size + 1);
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length > info.size) refuse(field, `${shown} changed while it was read`);
      const bytes = buffer.subarray(0, length);
      const type = imageTypeOf(bytes);
      if (!type) refuse(field, `${shown} ${NOT_AN_IMAGE}`);
      return new Blob([bytes], { type });
    } finally {
      await handle.close();
    }
  };
}
