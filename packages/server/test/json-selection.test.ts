import { NOT_ACCEPTABLE_TEXT } from '@app/schemas';
import { describe, expect, it } from 'vitest';
import { acceptsJson } from '../src/pipeline/json-selection.js';
import { useTestServer } from './harness.js';

const server = useTestServer();

describe('JSON selection', () => {
  it('answers JSON for the .json suffix', async () => {
    const { token } = await server.createUser();
    const res = await server.get('/me/access_tokens.json', { token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers JSON for Accept: application/json without the suffix (routes ignore the suffix)', async () => {
    const { token } = await server.createUser();
    const res = await server.get('/me/access_tokens', {
      token,
      headers: { accept: 'text/html;q=0.9, application/json' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(1);
  });

  it.each([
    ['no Accept header', undefined],
    ['Accept: text/html', 'text/html'],
    ['Accept: */*', '*/*'],
    ['application/json with q=0', 'application/json;q=0'],
  ])('answers 406 in plain text with %s and no suffix', async (_label, accept) => {
    const { token } = await server.createUser();
    const res = await server.get('/me/access_tokens', { token, headers: accept ? { accept } : {} });
    expect(res.statusCode).toBe(406);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe(NOT_ACCEPTABLE_TEXT);
  });

  it('checks JSON selection before the token', async () => {
    const res = await server.get('/me/access_tokens');
    expect(res.statusCode).toBe(406);
  });

  it('honours quality values', () => {
    expect(acceptsJson('application/json;q=0.5')).toBe(true);
    expect(acceptsJson('application/json; q=0.0')).toBe(false);
    expect(acceptsJson('text/plain, application/json')).toBe(true);
    expect(acceptsJson('application/jsonx')).toBe(false);
  });
});
