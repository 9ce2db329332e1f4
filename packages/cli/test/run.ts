import type { ChildRun } from '../../sdk/test/e2e/harness.js';
import { type IO, main } from '../src/index.js';

/** An environment as a child process gets it: a variable set to undefined is not set. */
function environment(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
}

/**
 * Runs `marketplace …args` in this process as `dist/bin.js` runs it in a pipe: `main()` with stdout
 * and stdin not terminals, `input` as all of stdin. An error `main()` throws is what the process
 * would die of: exit 1, its stack on stderr. A command costs milliseconds here, not a process
 * start (0.3-0.6 s); what only a process has is tested on the built bin in child processes.
 * `terminal` gives what a terminal decides instead (a TTY, its width, the answer at a prompt).
 * `onWrite` sees each write as it is made: when output came, against the requests a stand-in saw;
 * what it throws is what that write throws (a full disk: `ENOSPC`).
 */
export async function runInProcess(
  args: readonly string[],
  env: Record<string, string | undefined>,
  input = '',
  terminal: Partial<Pick<IO, 'isTTY' | 'stdinIsTTY' | 'columns' | 'readLine'>> = {},
  onWrite: (stream: 'stdout' | 'stderr', text: string) => void = () => undefined,
): Promise<ChildRun> {
  let stdout = '';
  let stderr = '';
  const io: IO = {
    stdout: (text: string) => {
      onWrite('stdout', text);
      stdout += text;
    },
    stderr: (text: string) => {
      onWrite('stderr', text);
      stderr += text;
    },
    isTTY: false,
    env: environment(env),
    readStdin: async () => input,
    stdinIsTTY: false,
    ...terminal,
  };
  try {
    return { code: await main(args, io), stdout, stderr };
  } catch (error) {
    return { code: 1, stdout, stderr: `${stderr}${error instanceof Error ? error.stack : String(error)}\n` };
  }
}
