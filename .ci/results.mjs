// CI's reading of vitest's JSON reports (plain Node, no dependencies: it runs on the machine's Node).
//
//   node .ci/results.mjs crashed <report.json> <log>
//     Prints the test files whose worker process died of a signal (the runtime crashed: vitest
//     says "Worker exited unexpectedly with signal …"), one per line, when those deaths are the
//     run's only failures: no failed test, no other failed file. Prints nothing otherwise.
//   node .ci/results.mjs replace <report.json> <rerun.json> <file>…
//     Takes the crashed files' entries out of the first report, their run again being in the
//     second: each test is counted once, from the run that finished it.
//   node .ci/results.mjs count <dir>
//     Prints each failed test and failed file (report, file, name, the first line of its error),
//     then "tests: N passed, N failed" over every report in <dir> as the last line; exits 1 if any
//     failed. CI's record keeps only the end of the log, so the failures are named there.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [command, ...args] = process.argv.slice(2);
const read = (file) => JSON.parse(readFileSync(file, 'utf8'));
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts a colour code
const stripColours = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');

if (command === 'crashed') {
  const [reportFile, logFile] = args;
  const report = read(reportFile);
  const log = stripColours(readFileSync(logFile, 'utf8'));
  const crashed = new Set(
    [...log.matchAll(/Worker exited unexpectedly with signal \w+ .*? while running test file (\S+)/g)].map(
      (match) => match[1],
    ),
  );
  const failedFiles = report.testResults.filter((file) => file.status === 'failed').map((file) => file.name);
  const errors = Number(/^\s*Errors\s+(\d+) errors?/m.exec(log)?.[1] ?? 0);
  const onlyCrashes =
    crashed.size > 0 &&
    report.numFailedTests === 0 &&
    errors === crashed.size &&
    failedFiles.length === crashed.size &&
    failedFiles.every((name) => crashed.has(name));
  if (onlyCrashes) console.log([...crashed].join('\n'));
} else if (command === 'replace') {
  const [reportFile, rerunFile, ...files] = args;
  const report = read(reportFile);
  const rerun = read(rerunFile);
  const gone = new Set(files);
  report.testResults = report.testResults.filter((file) => !gone.has(file.name));
  report.numFailedTestSuites -= gone.size;
  report.numTotalTestSuites -= gone.size;
  report.success = report.numFailedTests === 0 && report.numFailedTestSuites === 0;
  report.crashedAndRunAgain = files;
  writeFileSync(reportFile, JSON.stringify(report));
  if (!rerun.success) process.exitCode = 1;
} else if (command === 'count') {
  // A failed test counts once; so does a file that failed with no failed test (it did not load, a
  // hook failed), and a report that failed with neither (an error outside every test). Vitest's
  // numFailedTestSuites is not added: it counts every describe block around a failed test too.
  const [dir] = args;
  let passed = 0;
  let failed = 0;
  const firstLine = (messages) =>
    stripColours(String(messages?.[0] ?? ''))
      .split('\n')[0]
      .slice(0, 300);
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
    const report = read(join(dir, name));
    const run = name.replace(/\.json$/, '');
    let failedHere = report.numFailedTests;
    passed += report.numPassedTests;
    for (const file of report.testResults ?? []) {
      const where = `${run}: ${file.name.replace(`${process.cwd()}/`, '')}`;
      const tests = file.assertionResults ?? [];
      for (const test of tests.filter((test) => test.status === 'failed'))
        console.log(`FAILED ${where} > ${test.fullName}: ${firstLine(test.failureMessages)}`);
      if (file.status === 'failed' && !tests.some((test) => test.status === 'failed')) {
        console.log(`FAILED ${where}: ${firstLine([file.message])}`);
        failedHere += 1;
      }
    }
    if (!report.success && failedHere === 0) {
      console.log(`FAILED ${run}: the run failed outside its tests (its log says why)`);
      failedHere = 1;
    }
    failed += failedHere;
  }
  console.log(`tests: ${passed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
} else {
  console.error('usage: node .ci/results.mjs crashed|replace|count …');
  process.exitCode = 2;
}
