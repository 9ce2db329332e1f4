/** The documented shapes of a rejection (decisions.md §1), shared by the security suites. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { UNAUTHORIZED_TEXT, WWW_AUTHENTICATE } from '@app/schemas';
import type { LightMyRequestResponse } from 'fastify';

/**
 * Why a rejection does not have its documented shape, or null when it does: `401` plain text
 * with the challenge; any other 4xx a JSON `{"error": string}` or `{"errors": {field: string[]}}`
 * (the address `404` alone may be empty).
 */
export function rejectionShapeProblem(
  res: LightMyRequestResponse,
  options: { emptyNotFound?: boolean } = {},
) {
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode === 401) {
    if (res.headers['www-authenticate'] !== WWW_AUTHENTICATE) return 'no WWW-Authenticate challenge';
    if (!type.startsWith('text/plain')) return `401 with content-type ${type}`;
    return res.body === UNAUTHORIZED_TEXT ? null : `401 body ${JSON.stringify(res.body)}`;
  }
  if (res.statusCode === 404 && options.emptyNotFound && res.body === '') return null;
  if (!type.startsWith('application/json')) return `${res.statusCode} with content-type ${type}`;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `${res.statusCode} body is not JSON: ${res.body.slice(0, 200)}`;
  }
  if (!isErrorBody(body)) return `${res.statusCode} body ${res.body.slice(0, 300)}`;
  return null;
}

function isErrorBody(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  if (keys.length !== 1) return false;
  const record = body as Record<string, unknown>;
  if (keys[0] === 'error') return typeof record.error === 'string' && record.error !== '';
  if (keys[0] !== 'errors') return false;
  const errors = record.errors;
  if (errors === null || typeof errors !== 'object' || Array.isArray(errors)) return false;
  const fields = Object.values(errors);
  return (
    fields.length > 0 &&
    fields.every((m) => Array.isArray(m) && m.length > 0 && m.every((s) => typeof s === 'string' && s !== ''))
  );
}

/** Where the suites write their figures (for docs/reliability.md); ignored by git. */
export function writeReport(name: string, data: unknown): void {
  const dir = new URL('./output/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL(name, dir), `${JSON.stringify(data, null, 2)}\n`);
}
