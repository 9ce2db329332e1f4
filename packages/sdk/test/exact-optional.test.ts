/**
 * The payload types as a consumer with `exactOptionalPropertyTypes` sees them: the repository
 * compiles without it, under which `field?: T` takes `undefined` anyway, so this file compiles
 * `types/exact-optional.ts` with it, through the TypeScript compiler.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const fixture = fileURLToPath(new URL('./types/exact-optional.ts', import.meta.url));
const baseConfig = fileURLToPath(new URL('../../../tsconfig.base.json', import.meta.url));

/** The fixture's errors under the repository's options, with `exactOptionalPropertyTypes` on. */
function errorsUnderExactOptional(): string[] {
  const { config } = ts.readConfigFile(baseConfig, (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(
    config,
    ts.sys,
    fileURLToPath(new URL('.', import.meta.url)),
  );
  const program = ts.createProgram([fixture], { ...options, exactOptionalPropertyTypes: true, noEmit: true });
  const file = program.getSourceFile(fixture);
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map(
    (d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
  );
}

// Compiling takes a few seconds of CPU: the default per-test limit is not about this test's subject.
test('under exactOptionalPropertyTypes, file fields take undefined like every other optional payload field', {
  timeout: 120_000,
}, () => {
  expect(errorsUnderExactOptional()).toEqual([]);
});
