// CI's task runner (plain Node, no dependencies: it runs on the machine's Node 20).
//
//   node .ci/tasks.mjs <table.mjs> <results dir>
//
// Runs the tasks of a table (.ci/table.mjs): each task is a shell command with the tasks that must
// have passed first (`after`) and the cores it keeps busy (`cpus`, 1 by default). Tasks start in
// the table's order, each once what it needs has passed and the cores it would take are free:
// never more at once than the machine has. A task whose prerequisite failed does not run. Each task's output goes to
// <results dir>/logs/<name>.log, and nothing else reaches the console while they run, so that the
// end of CI's log (all that its record keeps) is the summary: the end of each failed task's log,
// then one line per task (ok / FAILED / not run / skipped, and a re-run with its reason, wall and
// CPU time). A task can say why it ran something again, or why it skipped, by writing one line to
// the file named by $TASK_NOTE. A failed task that wrote no vitest JSON report gets one that
// counts it as one failure, so that `results.mjs count` names it.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [tableFile, resultsDir] = process.argv.slice(2).map((arg) => resolve(arg));
const { default: tasks } = await import(pathToFileURL(tableFile).href);
const cores = availableParallelism();
const logs = join(resultsDir, 'logs');
mkdirSync(logs, { recursive: true });

for (const task of tasks) {
  task.cpus = Math.min(task.cpus ?? 1, cores);
  task.after ??= [];
  // A skipped task's dependents run: a skip is a decision (no PostgreSQL here, no spec file).
  for (const name of task.after)
    if (!tasks.some((other) => other.name === name))
      throw new Error(`${task.name} needs unknown task ${name}`);
}

/** Runs one task; resolves when it ends, with its status, times and note filled in. */
function start(task) {
  const base = join(logs, task.name.replaceAll(/[^\w.-]/g, '_'));
  const timesFile = `${base}.times`;
  const noteFile = `${base}.note`;
  // bash's `times` prints the CPU time of the shell's children (user, then system) once they end.
  const script = `trap 'times > ${JSON.stringify(timesFile)}' EXIT\nsource .ci/lib.sh\n${task.run}`;
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...task.env, TASK_NOTE: noteFile, CI_RESULTS: resultsDir },
    });
    const log = [];
    child.stdout.on('data', (chunk) => log.push(chunk));
    child.stderr.on('data', (chunk) => log.push(chunk));
    child.on('close', (code, signal) => {
      writeFileSync(`${base}.log`, Buffer.concat(log));
      task.wall = Math.round((Date.now() - started) / 1000);
      task.cpu = cpuSeconds(timesFile);
      task.note = existsSync(noteFile) ? readFileSync(noteFile, 'utf8').trim() : '';
      task.status = code === 0 ? (task.note.startsWith('skipped: ') ? 'skipped' : 'ok') : 'FAILED';
      if (task.status === 'skipped') task.note = task.note.slice('skipped: '.length);
      if (signal) task.note = `killed by ${signal}`;
      task.log = `${base}.log`;
      resolve(task);
    });
  });
}

function cpuSeconds(file) {
  if (!existsSync(file)) return undefined;
  const children = readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '';
  return Math.round(
    [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, m, s]) => sum + Number(m) * 60 + Number(s), 0),
  );
}

let free = cores;
const byName = new Map(tasks.map((task) => [task.name, task]));
await new Promise((allDone) => {
  const schedule = () => {
    let changed = false;
    for (const task of tasks) {
      if (task.status || task.started) continue;
      const blocker = task.after
        .map((name) => byName.get(name))
        .find((t) => ['FAILED', 'not run'].includes(t.status));
      if (blocker) {
        task.status = 'not run';
        task.note = `${blocker.name} ${blocker.status === 'FAILED' ? 'failed' : 'did not run'}`;
        changed = true;
        continue;
      }
      const ready = task.after.every((name) => ['ok', 'skipped'].includes(byName.get(name).status));
      if (!ready) continue;
      // Tasks start in the table's order: a ready task that does not fit yet holds back the
      // ones after it (else a test run that needs both cores would wait behind small tasks).
      if (task.cpus > free) break;
      free -= task.cpus;
      task.started = true;
      console.log(`::: start ${task.name}`);
      start(task).then(() => {
        free += task.cpus;
        console.log(`::: ${task.status} ${task.name} (${task.wall} s)`);
        schedule();
      });
    }
    if (changed) schedule();
    else if (tasks.every((task) => task.status)) allDone();
  };
  schedule();
});

const failed = tasks.filter((task) => task.status === 'FAILED');
for (const task of failed) {
  const lines = readFileSync(task.log, 'utf8').trimEnd().split('\n');
  console.log(`\n::: the end of ${task.name}'s log (${task.log}):`);
  console.log(lines.slice(-40).join('\n'));
  const report = join(resultsDir, task.report ?? `${task.name.replaceAll(/[^\w.-]/g, '_')}.json`);
  if (!existsSync(report))
    writeFileSync(
      report,
      JSON.stringify({ success: false, numPassedTests: 0, numFailedTests: 0, testResults: [] }),
    );
}
console.log(`\n::: tasks (${cores} cores; wall and CPU seconds):`);
for (const task of tasks) {
  const times =
    task.wall === undefined
      ? ''
      : `${String(task.wall).padStart(5)} s  CPU ${String(task.cpu ?? '?').padStart(5)} s`;
  console.log(
    `${task.status.padEnd(8)} ${task.name.padEnd(22)} ${times}${task.note ? `  ${task.note}` : ''}`,
  );
}
process.exitCode = failed.length > 0 || tasks.some((task) => task.status === 'not run') ? 1 : 0;
