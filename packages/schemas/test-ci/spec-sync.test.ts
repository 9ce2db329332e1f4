/**
 * CI-only: compares the committed endpoint list with the endpoint tables of the spec document,
 * which exists only beside the repository on CI machines (`../shared`). Run by `.ci/run` through
 * `vitest.ci.config.ts`; users' clones never run it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import contract from '../contract/endpoints.json' with { type: 'json' };

const specPath = process.env.MARKETPLACE_SPEC_PATH;
if (!specPath) throw new Error('MARKETPLACE_SPEC_PATH must name the spec document');

function endpointsOfSpec(markdown: string): string[] {
  const rows = markdown
    .split('\n')
    .filter((line) => /^\|\s*(GET|POST|PATCH|PUT|DELETE|HEAD)\s*\|/.test(line));
  return rows.map((row) => {
    const [method, path] = row
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim());
    return `${method} ${path}`;
  });
}

describe('the committed endpoint list', () => {
  it('is exactly the endpoint tables of the spec', () => {
    const spec = endpointsOfSpec(readFileSync(specPath, 'utf8'));
    expect(spec.length).toBeGreaterThan(0);
    expect([...contract.spec].sort()).toEqual([...spec].sort());
  });
});
