/**
 * Counting a process's instructions with valgrind's callgrind, for `pnpm bench:instructions`
 * (packages/server/bench/instructions.ts, the server's show; packages/sdk/bench/instructions.ts,
 * the client's calls): the command a target runs under, zeroing and dumping its counts while it
 * runs, and the counts of a dump.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface Counts {
  /** Instructions, level-1 instruction-cache misses, branches mispredicted (conditional and indirect). */
  main: { instructions: number; i1Misses: number; mispredicted: number };
  others: { instructions: number };
}

/** The totals of each thread's dump (`--separate-threads=yes`: `<file>.<dump>-<thread>`), read then removed. */
export function countsOf(dir: string): Counts {
  const threads = readdirSync(dir)
    .filter((name) => /-\d+$/.test(name))
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      rmSync(join(dir, name));
      const events = /^events: (.*)$/m.exec(text)?.[1]?.split(' ') ?? [];
      const totals = (/^(?:summary|totals): (.*)$/m.exec(text)?.[1] ?? '').split(' ').map(Number);
      const of = (event: string) => totals[events.indexOf(event)] ?? 0;
      return { thread: name, of };
    });
  const main = threads.find((t) => t.thread.endsWith('-01'));
  if (!main) throw new Error(`no dump of the main thread in ${dir}`);
  const others = threads.filter((t) => t !== main);
  return {
    main: {
      instructions: main.of('Ir'),
      i1Misses: main.of('I1mr'),
      mispredicted: main.of('Bcm') + main.of('Bim'),
    },
    others: { instructions: others.reduce((sum, t) => sum + t.of('Ir'), 0) },
  };
}

/**
 * The rows both counts print, each a measure of `a` and of `b` (the baseline first): the main
 * thread's instructions, misses and mispredicted branches, and the other threads' instructions.
 */
export function compareRows(a: Counts, b: Counts): Array<[string, number, number]> {
  return [
    ['main thread: thousand instructions', a.main.instructions, b.main.instructions],
    ['main thread: thousand L1 instruction-cache misses', a.main.i1Misses, b.main.i1Misses],
    ['main thread: thousand branches mispredicted', a.main.mispredicted, b.main.mispredicted],
    ['other threads: thousand instructions', a.others.instructions, b.others.instructions],
  ];
}

/** The command a process runs under to be counted, its dumps written in `dir`. */
export const underCallgrind = (dir: string): string[] => [
  'valgrind',
  '--tool=callgrind',
  '--cache-sim=yes',
  '--branch-sim=yes',
  '--separate-threads=yes',
  // Threads take turns fairly: a compilation does not hold the event loop for long.
  '--fair-sched=yes',
  `--callgrind-out-file=${join(dir, 'out')}`,
];

/** Zeroes the counts of the process `pid` (started {@link underCallgrind}), or dumps them. */
export function callgrindControl(pid: number, command: '--zero' | '--dump'): void {
  execFileSync('callgrind_control', [command, String(pid)], { stdio: 'ignore' });
}

/** Exits with a hint when valgrind is not installed. */
export function requireValgrind(): void {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error('valgrind is not installed (Debian: apt-get install valgrind)');
    process.exit(1);
  }
}
