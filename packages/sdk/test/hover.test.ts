/**
 * What an editor shows on hover over a field of a call's payload or query: the field's meaning
 * from the contract (`FIELD_DESCRIPTIONS`), e.g. that an amount is in the minor unit of its
 * currency, not only `number`. Asked of TypeScript's language service, as an editor asks it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FIELD_DESCRIPTIONS } from '@app/schemas';
import ts from 'typescript';
import { expect, test } from 'vitest';

const fixture = fileURLToPath(new URL('./types/hover.ts', import.meta.url));
const baseConfig = fileURLToPath(new URL('../../../tsconfig.base.json', import.meta.url));

function hover(needles: readonly string[]): Record<string, { type: string; doc: string }> {
  const { config } = ts.readConfigFile(baseConfig, (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(
    config,
    ts.sys,
    fileURLToPath(new URL('.', import.meta.url)),
  );
  const text = readFileSync(fixture, 'utf8');
  const service = ts.createLanguageService({
    getScriptFileNames: () => [fixture],
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) =>
      ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(f) ?? '') : undefined,
    getCurrentDirectory: () => process.cwd(),
    getCompilationSettings: () => ({ ...options, noEmit: true }),
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  });
  const shown: Record<string, { type: string; doc: string }> = {};
  for (const needle of needles) {
    const info = service.getQuickInfoAtPosition(fixture, text.indexOf(needle));
    shown[needle] = {
      type: ts.displayPartsToString(info?.displayParts),
      doc: ts.displayPartsToString(info?.documentation),
    };
  }
  return shown;
}

// The language service type-checks the SDK's sources: seconds of CPU, not the subject of the test.
test('a payload or query field shows what it means, its enum values and its type', {
  timeout: 120_000,
}, () => {
  const shown = hover([
    'page: 2',
    "privacy_setting: 'public'",
    'cpm_amount: 500',
    "currency: 'usd'",
    'max_payout_amount: 0',
    'base_reward_amount: 100',
    "countries: ['US']",
    "permission: 'read'",
  ]);
  const field = (needle: string) => needle.slice(0, needle.indexOf(':'));
  for (const [needle, { doc }] of Object.entries(shown))
    expect(doc, needle).toBe(FIELD_DESCRIPTIONS[field(needle)]);
  expect(shown['cpm_amount: 500']?.doc).toContain('minor unit of `currency`');
  expect(shown["privacy_setting: 'public'"]?.type).toBe(
    '(property) privacy_setting?: "public" | "private" | "restricted" | undefined',
  );
  expect(shown['cpm_amount: 500']?.type).toBe('(property) cpm_amount?: number | undefined');
});
