import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { ACCESS_TOKEN_PREFIX } from '@app/schemas';

/*
 * Token format: `mkt_` + 43 base64url characters (32 random bytes, 256 bits) + 6 base62
 * characters of CRC-32 over the random part. The prefix lets secret scanners find a token; the
 * checksum lets them (and us, before any database work) tell a real one from a typo offline.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = /^mkt_([A-Za-z0-9_-]{43})([0-9A-Za-z]{6})$/;

function checksum(secret: string): string {
  let n = crc32(secret);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function generateToken(): string {
  const secret = randomBytes(32).toString('base64url');
  return `${ACCESS_TOKEN_PREFIX}${secret}${checksum(secret)}`;
}

/** Whether a string has the token shape and a valid checksum. */
export function isWellFormedToken(token: string): boolean {
  const match = SHAPE.exec(token);
  return match !== null && checksum(match[1] as string) === match[2];
}

/** The stored form of a token: hex SHA-256. Lookups compare digests, never tokens. */
export const digestOf = (token: string): string => hash('sha256', token, 'hex');
