import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { Interrupted } from './arguments.js';
import { main } from './cli.js';
import { cannotWrite } from './output.js';
import { escapeControls } from './table.js';

/**
 * One line typed at the terminal after `question`. Ctrl-C rejects with `Interrupted` (the CLI
 * ends, exit 130); Ctrl-D (the end of input) is an empty answer: "no" at a confirmation, no token
 * at the token prompt. Both end the prompt's line, so what comes next starts on a line of its own;
 * so does Enter where `output` does not echo it (the hidden prompt's sink).
 */
function ask(output: NodeJS.WritableStream, question: string, echoes: boolean): Promise<string> {
  // The terminal is in raw mode (no echo of its own, Ctrl-C a key) once the interface exists:
  // the question comes after it.
  const prompt = createInterface({ input: process.stdin, output, terminal: true });
  if (!echoes) process.stderr.write(question);
  let answered = false;
  return new Promise<string>((resolve, reject) => {
    prompt.on('SIGINT', () => reject(new Interrupted('Ctrl-C')));
    prompt.on('close', () => resolve(''));
    prompt.question(echoes ? question : '').then(
      (answer) => {
        answered = true;
        resolve(answer);
      },
      () => resolve(''),
    );
  }).finally(() => {
    prompt.close();
    if (!answered || !echoes) process.stderr.write('\n');
  });
}

/**
 * `auth login` without `--token`: a prompt in a terminal, else all of stdin (`… | marketplace auth
 * login`). What is typed at the prompt is not echoed (readline echoes to its output, here a sink),
 * so the token never lands in the terminal's scrollback.
 */
async function readStdin(): Promise<string> {
  if (!process.stdin.isTTY) return text(process.stdin);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  return ask(sink, 'Token (not shown): ', false);
}

/** A confirmation: the question on stderr, one line of the terminal's answer. */
const readLine = (question: string): Promise<string> => ask(process.stderr, question, true);

/**
 * The reader of stdout or stderr went away (`marketplace … | head -1`, `| true`): nothing more can
 * be said, so the CLI ends at once, quietly and with exit 0, as a command in a pipe that its reader
 * cut short (Node ignores SIGPIPE, so without this the write's EPIPE is an unhandled 'error' with
 * a stack trace). Ending here also stops what was still to come: the next page of `--all`, the
 * notice under a table.
 *
 * Any other write error (a full disk, a file over quota, EIO) is a failure: on stdout the write
 * throws it, and `main()` says it as one `marketplace: …` line on stderr, exit 1; on stderr
 * nothing can say it, and the CLI ends at once with exit 1.
 */
function endWhenReaderCloses(stream: NodeJS.WriteStream): (text: string) => void {
  const closed = (error: NodeJS.ErrnoException | null | undefined) => error?.code === 'EPIPE';
  let thrown: Error | undefined;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (closed(error)) process.exit(0);
    // The write threw it, and main() has said it (its 'error' event comes a tick later).
    if (error === thrown) return;
    // Found after the last write (a socket's write fails later): no write is left to throw it.
    if (stream === process.stdout)
      process.stderr.write(escapeControls(`marketplace: ${cannotWrite(error)}\n`));
    process.exit(1);
  });
  // A pipe or a file is written synchronously: its error is known (`errored`) when the write
  // returns, while the 'error' event comes a tick later.
  return (text) => {
    stream.write(text);
    const error = stream.errored as NodeJS.ErrnoException | null;
    if (closed(error)) process.exit(0);
    if (!error) return;
    if (stream !== process.stdout) process.exit(1);
    thrown = error;
    throw error;
  };
}

const code = await main(process.argv.slice(2), {
  stdout: endWhenReaderCloses(process.stdout),
  stderr: endWhenReaderCloses(process.stderr),
  isTTY: process.stdout.isTTY === true,
  env: process.env,
  readStdin,
  stdinIsTTY: process.stdin.isTTY === true,
  readLine,
  ...(process.stdout.columns !== undefined && { columns: process.stdout.columns }),
});
process.exitCode = code;
