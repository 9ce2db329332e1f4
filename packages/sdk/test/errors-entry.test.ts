/**
 * `@app/sdk/errors`: the error classes without the client, for a UI layer or an error mapper. The
 * build is tsup's, with the package's own configuration (declarations left out), into a folder of
 * the test's: each class must be defined once per format, so that the entry's classes are the very
 * ones the client and `@app/sdk/operations` throw (not another copy recognised by kind).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Options } from 'tsup';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import config from '../tsup.config.js';

const root = resolve(import.meta.dirname, '..');
// Inside the package, so that the build finds zod as the published one would.
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const out = mkdtempSync(join(root, 'node_modules', '.cache', 'errors-entry-'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

beforeAll(async () => {
  const options = config as Options;
  await build({
    ...options,
    entry: (options.entry as string[]).map((e) => join(root, e)),
    outDir: out,
    dts: false,
    sourcemap: false,
    silent: true,
    config: false,
  });
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

/** A fetch that answers every request with a 404 `{"error": "Not found"}`. */
const notFound = async () =>
  new Response('{"error":"Not found"}', { status: 404, headers: { 'content-type': 'application/json' } });

const ERROR_CLASSES = [
  'MarketplaceError',
  'APIError',
  'BadRequestError',
  'AuthenticationError',
  'PermissionDeniedError',
  'NotFoundError',
  'NotAcceptableError',
  'ValidationError',
  'ServiceUnavailableError',
  'InternalServerError',
  'APIConnectionError',
  'APIConnectionTimeoutError',
  'ResponseValidationError',
  'RequestValidationError',
  'ClientOptionError',
] as const;

describe('@app/sdk/errors', () => {
  test('package.json exports it for import and require, with declarations, like the other entries', () => {
    expect(pkg.exports['./errors']).toEqual({
      '@app/source': './src/errors.ts',
      import: { types: './dist/errors.d.ts', default: './dist/errors.js' },
      require: { types: './dist/errors.d.cts', default: './dist/errors.cjs' },
    });
    expect(pkg.typesVersions['*'].errors).toEqual(['./dist/errors.d.ts']);
  });

  // Loading a built client (zod with it) takes seconds of CPU on a busy machine: not the subject.
  for (const [format, ext] of [
    ['ESM', 'js'],
    ['CommonJS', 'cjs'],
  ] as const)
    describe(format, { timeout: 60_000 }, () => {
      const load = async (name: string) =>
        ext === 'js'
          ? await import(pathToFileURL(join(out, `${name}.js`)).href)
          : createRequire(import.meta.url)(join(out, `${name}.cjs`));

      test('the entry exports every error class, and they are the client entry’s own', async () => {
        const errors = await load('errors');
        const index = await load('index');
        for (const name of ERROR_CLASSES) {
          expect(typeof errors[name], name).toBe('function');
          expect(errors[name], name).toBe(index[name]);
        }
      });

      test('what the client and the operations throw is an instance of the entry’s class itself', async () => {
        const errors = await load('errors');
        const { Marketplace } = await load('index');
        const { callOperation, operations } = await load('operations');
        const client = new Marketplace({
          token: 't',
          baseUrl: 'http://api.test',
          fetch: notFound,
          cache: false,
        });

        const thrown = await client.organizations.retrieve('nope').catch((e: unknown) => e);
        expect(Object.getPrototypeOf(thrown)).toBe(errors.NotFoundError.prototype);

        const op = operations.find((o: { name: string }) => o.name === 'organizations.retrieve');
        const viaOp = await callOperation(client, op, { id: 'nope' }).catch((e: unknown) => e);
        expect(Object.getPrototypeOf(viaOp)).toBe(errors.NotFoundError.prototype);

        const refused = await callOperation(client, op, {}).catch((e: unknown) => e);
        expect(Object.getPrototypeOf(refused)).toBe(errors.RequestValidationError.prototype);
      });

      test('each class is defined once among the built files', () => {
        const files = readdirSync(out).filter((f) => f.endsWith(`.${ext}`));
        const text = files.map((f) => readFileSync(join(out, f), 'utf8')).join('\n');
        for (const name of ERROR_CLASSES)
          expect(text.match(new RegExp(`var ${name} = class`, 'g'))?.length, name).toBe(1);
      });

      test('it holds no client and no schema library', () => {
        const files = readdirSync(out).filter((f) => f.endsWith(`.${ext}`));
        const errorsText = readFileSync(join(out, `errors.${ext}`), 'utf8');
        // What the entry loads: its own file and the chunks it names.
        const loaded = files.filter((f) => f === `errors.${ext}` || errorsText.includes(`./${f}`));
        const text = loaded.map((f) => readFileSync(join(out, f), 'utf8')).join('\n');
        expect(text).not.toMatch(/["']zod["']/);
        expect(text).not.toContain('var Marketplace = class');
      });
    });
});
