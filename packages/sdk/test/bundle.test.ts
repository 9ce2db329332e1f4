/**
 * What an application's bundler makes of the SDK for a browser: esbuild (as Vite's dev server,
 * tsup and many build scripts use it) bundling an entry that imports from the SDK's sources.
 */
import { resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, test } from 'vitest';

const src = resolve(import.meta.dirname, '../src');

/** Bundles `code` (an entry module) for the browser; the files in its output and its warnings. */
async function bundle(code: string) {
  const result = await build({
    stdin: { contents: code, resolveDir: src, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@app/source'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  // The files that put code into the output (the metafile's inputs also list the ones shaken out).
  const [output] = Object.values((result.metafile as Metafile).outputs);
  const inputs = Object.entries(output?.inputs ?? {})
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
  return { inputs, warnings: result.warnings.map((w) => w.text) };
}

describe('bundled for a browser', () => {
  test("takes zod's English messages only, not its 40-odd other locales", async () => {
    const { inputs } = await bundle(
      "import { Marketplace } from './index.ts'; globalThis.client = Marketplace;",
    );
    expect(inputs.filter((input) => input.includes('zod/v4/locales/'))).toEqual([
      expect.stringMatching(/zod\/v4\/locales\/en\.js$/),
    ]);
  });

  test('@app/sdk/operations bundles without an error or a warning (its file reader is for Node)', async () => {
    const { warnings } = await bundle(
      "import { callOperation, operations } from './operations.ts'; globalThis.ops = [callOperation, operations];",
    );
    expect(warnings).toEqual([]);
  });
});
