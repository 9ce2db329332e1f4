/**
 * `pnpm bench:instructions`, the SDK half: the SDK's `retrieve` and its iteration of a list against
 * ky alone configured the same (cases.ts, the baselines of issue #27's SDK targets), counted in
 * instructions, not in seconds. Each side runs in its own process under valgrind's callgrind
 * (counted-calls.ts) against the stub server (stub-server.ts, answering from memory, not counted),
 * is warmed up, then makes the counted calls; what it prints is per call (per page for a list): the
 * main thread's instructions, level-1 instruction-cache misses and branches mispredicted, and the
 * other threads' instructions (V8's compiler). Each client collects its garbage on its main thread
 * (`--single-threaded-gc`), so that a collection is counted whole, and where the call waits for
 * it, and none on a timer (`--no-memory-reducer`). The SDK bench's seconds swing by ±0.15 from
 * run to run on a 2-core machine; these counts do not move with the machine's load. With both
 * flags three runs agreed within 0.5 % on `retrieve`'s ratio; on the iteration the SDK's count
 * stayed within 2.5 % and the hand loop's within 7 %, as the major collections fell in the
 * window or not (a shorter window moves more; docs/performance.md). The two sides of a case run
 * at once, one per core; the iteration also against the hand loop checking each page as the SDK
 * does (cases.ts `checkedPage`), for reference.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { PAGE_SIZE } from '@app/schemas';
import {
  type Counts,
  callgrindControl,
  compareRows,
  countsOf,
  requireValgrind,
  underCallgrind,
} from '../../../scripts/callgrind.js';
import { stopChildren, stub } from './cases.js';

const here = dirname(fileURLToPath(import.meta.url));
const ITEMS = 2_000;
const PAGES = ITEMS / PAGE_SIZE;
// V8 keeps compiling a client's code for the first thousands of calls; under callgrind the counts
// settle later. The warm-up is what that costs (as for the server's count).
/** Calls of `retrieve` counted (`BENCH_CALLS`) after `BENCH_WARM_UP` calls; pages of lists, the same. */
const CALLS = Number(process.env.BENCH_CALLS ?? 5_000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 5_000);
const lists = (pages: number) => Math.max(1, Math.round(pages / PAGES));

/** Runs `name` under callgrind against `base`: `warmUp` calls, then `counted` calls counted. */
async function count(name: string, base: string, warmUp: number, counted: number): Promise<Counts> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-sdk-'));
  const script = join(here, 'counted-calls.ts');
  const [command, ...args] = [
    ...underCallgrind(dir),
    process.execPath,
    // A young collection's work is otherwise shared between the main thread and V8's helper
    // threads in a split that moved the main thread's count by up to 15 % between two runs of the
    // same code; on one thread, every collection is counted where the call waits for it.
    '--single-threaded-gc',
    // Nor does V8 collect on a timer (a heap that seems idle): under callgrind a call takes some
    // 40 times as long, so such collections fell on the slower side's calls far more often.
    '--no-memory-reducer',
    '--expose-gc',
    '--import',
    'tsx',
    '--conditions=@app/source',
    script,
    name,
    base,
    String(warmUp),
    String(counted),
  ];
  // valgrind's banner and warnings go to stderr: kept, and shown only if the side fails.
  const child: ChildProcess = spawn(command as string, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  try {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
    const expect = async (line: string) => {
      const next = await lines.next();
      if (next.value !== line) throw new Error(`${name}: expected "${line}", got "${next.value}"\n${stderr}`);
    };
    await expect('warm');
    callgrindControl(child.pid as number, '--zero');
    child.stdin?.write('go\n');
    await expect('done');
    callgrindControl(child.pid as number, '--dump');
    return countsOf(dir);
  } finally {
    child.stdin?.end();
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

requireValgrind();
try {
  const base = await stub({ BENCH_ITEMS: String(ITEMS) });
  const k = (n: number, per: number) => (n / per / 1000).toFixed(1);
  const ratio = (a: number, b: number) => (b / a).toFixed(3);
  console.log(
    `\n## The SDK counted in instructions (callgrind; the stub server; ${CALLS} retrieves after ${WARM_UP}, ${lists(CALLS)} lists of ${PAGES} pages after ${lists(WARM_UP)})\n`,
  );
  console.log(
    "| per call | ky alone (the SDK's retry and timeout) | SDK | ratio | target |\n|---|---|---|---|---|",
  );
  /** The rows of `sdk` against `baseline`, each labelled `label` and the measure's name. */
  const print = (label: string, baseline: Counts, sdk: Counts, per: number, target: string) => {
    const rows: Array<[string, number, number]> = [
      ...compareRows(baseline, sdk),
      // The compiler's threads and the main thread together.
      [
        'all threads: thousand instructions',
        baseline.main.instructions + baseline.others.instructions,
        sdk.main.instructions + sdk.others.instructions,
      ],
    ];
    for (const [name, a, b] of rows)
      console.log(
        `| ${label}: ${name} | ${k(a, per)} | ${k(b, per)} | ${ratio(a, b)} | ${name === rows[0]?.[0] ? target : ''} |`,
      );
  };
  for (const [what, warmUp, calls, per, unit] of [
    ['retrieve', WARM_UP, CALLS, CALLS, 'call'],
    ['iterate', lists(WARM_UP), lists(CALLS), lists(CALLS) * PAGES, 'page'],
  ] as const) {
    // The iteration is also counted against the hand loop checking each page as the SDK does
    // (cases.ts `checkedPage`): a reference for where the SDK's cost goes, not the target's baseline.
    const [ky, sdk, checked] = await Promise.all([
      count(`ky ${what}`, base, warmUp, calls),
      count(`sdk ${what}`, base, warmUp, calls),
      what === 'iterate' ? count('ky checked iterate', base, warmUp, calls) : undefined,
    ]);
    print(`${what}, per ${unit}`, ky, sdk, per, '≤ 1.10');
    if (checked)
      print(
        `(reference) ${what}, per ${unit}, against the hand loop checking each page as the SDK does`,
        checked,
        sdk,
        per,
        '',
      );
  }
} finally {
  await stopChildren();
}
