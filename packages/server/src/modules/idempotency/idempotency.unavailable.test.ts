import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { useTestServer } from '../../../test/harness.js';

// Its own file: the upload store stays broken for the rest of the file once broken.
const server = useTestServer();

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);

it('does not store a 5xx: the key is given back, so the retry runs the request again', async () => {
  const { token } = await server.createUser();
  await server.breakUploadStore();
  const send = () => {
    const form = new FormData();
    form.append('organization[name]', 'Acme');
    form.append('organization[logo]', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'logo.png');
    return server.post('/organizations.json', { token, form, headers: { 'idempotency-key': 'retry-me' } });
  };
  const first = await send();
  expect(first.statusCode).toBe(503);
  expect(await server.sql('select "key" from idempotency_keys')).toEqual([]);
  // Run again (not a replay, not a 409): the store is still broken, so it fails the same way.
  const again = await send();
  expect(again.statusCode).toBe(503);
  expect(again.headers['idempotent-replayed']).toBeUndefined();
  expect(await server.sql('select "key" from idempotency_keys')).toEqual([]);
});
