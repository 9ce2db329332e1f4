#!/usr/bin/env node
import { createInterface } from 'node:readline/promises';
import { text } from 'node:stream/consumers';
import { main } from './cli.js';

/** `auth login` without `--token`: a prompt in a terminal, else all of stdin (`… | marketplace auth login`). */
async function readStdin(): Promise<string> {
  if (!process.stdin.isTTY) return text(process.stdin);
  const prompt = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await prompt.question('Token: ');
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
});
process.exitCode = code;
