/**
 * On a Node.js older than 22 the bin stops at once with one line naming the version it needs
 * (decisions §6), before anything that would crash with a stack trace loads.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('exits 1 with one line on Node.js 21', () => {
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"21.7.3"})',
      join(import.meta.dirname, '../dist/bin.js'),
      'organizations',
      'list',
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, MARKETPLACE_TOKEN: 'mkt_x', MARKETPLACE_BASE_URL: 'http://127.0.0.1:9' },
    },
  );
  expect(result.stderr).toBe(
    'marketplace needs Node.js 22 or newer; this is Node.js 21.7.3. Install a newer one (https://nodejs.org/, or `nvm install 24`)\n',
  );
  expect(result.stdout).toBe('');
  expect(result.status).toBe(1);
});
