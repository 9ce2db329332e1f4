/**
 * What the server's package would publish: only its build. The tarball once held the demo token
 * (`.data/demo-token.json`, a working token in plain text), the local PGlite database, the
 * sources, the tests and the benches: 83 MB unpacked.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
// A data directory as `pnpm start` leaves it, in the package folder: it must never be packed.
const data = join(root, '.data-pack-test');
// Made in a hook, not as the file loads: a run that filters this test out (`-t`) runs no afterAll
// and left the folder behind.
beforeAll(() => {
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, 'demo-token.json'), '{"token":"mkt_not_a_real_token"}');
});
afterAll(() => rmSync(data, { recursive: true, force: true }));

it('packs dist/ (without source maps: the sources are not shipped), package.json and README.md, and nothing else', () => {
  const [report] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as [{ files: { path: string }[] }];
  const files = report.files.map((f) => f.path);
  expect(files).toContain('package.json');
  // The settings, commands and operations are documented in the package itself (`--help` points there).
  expect(files).toContain('README.md');
  expect(
    files.filter(
      (f) =>
        !['package.json', 'README.md'].includes(f) &&
        !/^dist\/([^/]+\.(js|d\.ts)|pglite-snapshot\.tar)$/.test(f),
    ),
  ).toEqual([]);
}, 60_000);
