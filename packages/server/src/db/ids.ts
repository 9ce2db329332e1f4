import { randomBytes } from 'node:crypto';

/**
 * A new resource identifier: 16 URL-safe characters carrying 96 random bits. Never sequential,
 * never derived from a counter or a clock (decisions.md §1).
 */
export const newId = (): string => randomBytes(12).toString('base64url');
