// `pnpm test:contract [--outputFile <file>]`: the SDK's end-to-end suite with a Prism validation
// proxy in front of each server it starts (see test/e2e/harness.ts), loaded with the server's own
// OpenAPI document. Prism logs every response that breaks the document ("Violation: response");
// this counts the requests it checked and those violations, and fails on any. With
// --outputFile, writes the result in the shape of vitest's JSON report (for the CI's count).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MIN_REQUESTS = 200;
const out = process.argv.includes('--outputFile')
  ? process.argv[process.argv.indexOf('--outputFile') + 1]
  : null;
const logDir = mkdtempSync(join(tmpdir(), 'mkt-prism-'));
const e2eReport = join(logDir, 'e2e.json');

const run = spawnSync(
  'vitest',
  ['run', '--project', 'sdk-e2e', '--reporter=default', '--reporter=json', `--outputFile.json=${e2eReport}`],
  { stdio: 'inherit', env: { ...process.env, MARKETPLACE_E2E_PRISM_LOG_DIR: logDir } },
);

const logs = readdirSync(logDir)
  .filter((f) => f.startsWith('prism-') && f.endsWith('.log'))
  .map((f) => readFileSync(join(logDir, f), 'utf8'))
  .join('\n')
  .split('\n');
const requests = logs.filter((l) => l.includes('Request received')).length;
// The server is judged by its responses; some requests are wrong on purpose (the error tests).
const violations = logs.filter((l) => l.includes('Violation: response'));
const requestViolations = logs.filter((l) => l.includes('Violation: request')).length;
let e2e = { numPassedTests: 0, numFailedTests: 0, success: false };
try {
  e2e = JSON.parse(readFileSync(e2eReport, 'utf8'));
} catch {}
rmSync(logDir, { recursive: true, force: true });

for (const v of violations) console.log(v.replace(/^.*?\[VALIDATOR\]\s*/, 'prism: '));
const ok = violations.length === 0 && requests >= MIN_REQUESTS;
console.log(
  `contract: Prism checked ${requests} requests: ${violations.length} response violations` +
    ` (and ${requestViolations} requests that break the document, as the error tests send them)` +
    (requests < MIN_REQUESTS ? ` (fewer than ${MIN_REQUESTS} requests)` : ''),
);
if (out)
  writeFileSync(
    out,
    JSON.stringify({
      numPassedTests: e2e.numPassedTests + (ok ? 1 : 0),
      numFailedTests: e2e.numFailedTests + (ok ? 0 : 1),
      numFailedTestSuites: 0,
      success: ok && e2e.success,
      // The e2e files, and Prism's verdict as one more test, so that CI can name what failed.
      testResults: [
        ...(e2e.testResults ?? []),
        {
          name: 'Prism validation proxy',
          status: ok ? 'passed' : 'failed',
          assertionResults: [
            {
              status: ok ? 'passed' : 'failed',
              fullName: 'every response through the proxy matches openapi.json',
              failureMessages: ok ? [] : [`${violations.length} response violations in ${requests} requests`],
            },
          ],
        },
      ],
    }),
  );
process.exit(ok && run.status === 0 ? 0 : 1);
