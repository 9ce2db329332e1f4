import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { main } from './cli.js';

/**
 * `auth login` without `--token`: a prompt in a terminal, else all of stdin (`… | marketplace auth
 * login`). What is typed at the prompt is not echoed (readline echoes to its output, here a sink),
 * so the token never lands in the terminal's scrollback.
 */
async function readStdin(): Promise<string> {
  if (!process.stdin.isTTY) return text(process.stdin);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  // The terminal is in raw mode (no echo of its own) once the interface exists: prompt after it.
  const prompt = createInterface({ input: process.stdin, output: sink, terminal: true });
  process.stderr.write('Token (not shown): ');
  try {
    return await prompt.question('');
  } finally {
    prompt.close();
    process.stderr.write('\n');
  }
}

/** A confirmation: the question on stderr, one line of the terminal's answer. */
async function readLine(question: string): Promise<string> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await prompt.question(question);
  } finally {
    prompt.close();
  }
}

const code = await main(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  isTTY: process.stdout.isTTY === true,
  env: process.env,
  readStdin,
  stdinIsTTY: process.stdin.isTTY === true,
  readLine,
  ...(process.stdout.columns !== undefined && { columns: process.stdout.columns }),
});
process.exitCode = code;
