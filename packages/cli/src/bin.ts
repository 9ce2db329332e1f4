#!/usr/bin/env node
import { text } from 'node:stream/consumers';
import { main } from './cli.js';

const code = await main(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  isTTY: process.stdout.isTTY === true,
  env: process.env,
  readStdin: () => text(process.stdin),
});
process.exitCode = code;
