import { IDEMPOTENCY_KEY_PATTERN } from '@app/schemas';

/**
 * A random UUID v4: the default `Idempotency-Key` of a POST. `crypto.randomUUID` where there is
 * one (Node, Bun, Deno, secure browser pages), else built from `crypto.getRandomValues`.
 */
export function randomUUID(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The key a call sends: the caller's (checked as the server checks it), or a new UUID v4. */
export function idempotencyKeyFor(given: string | undefined): string {
  if (given === undefined) return randomUUID();
  if (!IDEMPOTENCY_KEY_PATTERN.test(given))
    throw new TypeError('Marketplace: `idempotencyKey` must be 1 to 255 printable ASCII characters');
  return given;
}
