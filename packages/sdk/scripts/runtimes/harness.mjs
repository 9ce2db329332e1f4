// What the runtime scripts share (they run on the project's Node 24; the runtime under test runs
// flow.mjs): a real test server with a user, the flow run in a child process or a bundle of it,
// and the exit code that tells CI's task the runtime cannot run here.
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { startRealServer } from '../smoke-server.mjs';

/** packages/sdk: the built SDK is its dist/, the runtimes its node_modules/.bin. */
export const sdkRoot = resolve(import.meta.dirname, '../..');
export const bin = (name) => join(sdkRoot, 'node_modules', '.bin', name);

/** A script's exit code for "this runtime cannot run here"; CI's task then says `skipped`. */
export const SKIPPED = 77;

/** Ends the script: the runtime cannot run on this machine, for `reason`. */
export function skip(reason) {
  console.log(reason);
  process.exit(SKIPPED);
}

/** The first line a command prints (`--version`), or `skip` saying why it does not run. */
export function versionOf(command, args, what) {
  const out = spawnSync(command, args, { encoding: 'utf8' });
  const line = `${out.stdout ?? ''}`.trim().split('\n')[0];
  if (out.status !== 0 || !line)
    skip(`${what} does not run here: ${`${out.error?.message ?? out.stderr}`.trim().split('\n')[0]}`);
  return line;
}

/**
 * Starts a test server (with `env`, e.g. CORS origins) and a user, runs `check` with the server's
 * URL and the user's token, prints what it resolves to (the runtime's lines), closes the server.
 * A failure sets the exit code to 1.
 */
export async function withServer(title, check, { env } = {}) {
  const ms = (since) => `${Math.round(performance.now() - since)} ms`;
  const starting = performance.now();
  const server = await startRealServer({ env });
  const started = ms(starting);
  try {
    const token = await server.createUser();
    const running = performance.now();
    const output = await check({ baseUrl: server.url, token });
    if (output) console.log(output);
    console.log(`${title}: flow ok in ${ms(running)} (the test server started in ${started})`);
  } catch (error) {
    console.error(`${title}: ${error?.stack ?? error}`);
    process.exitCode = 1;
  } finally {
    await server.close();
  }
}

/** Runs entry.mjs (the flow as a program) with `command args…`; rejects unless it exits 0. */
export function runEntry(command, args, { baseUrl, token }) {
  const child = spawn(command, [...args, join(import.meta.dirname, 'entry.mjs')], {
    cwd: sdkRoot,
    env: { ...process.env, SDK_FLOW_BASE_URL: baseUrl, SDK_FLOW_TOKEN: token },
    stdio: 'inherit',
  });
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('exit', (code, signal) =>
      code === 0 ? done() : fail(new Error(`${command} exited with ${signal ?? code}`)),
    );
  });
}

/**
 * flow.mjs and the built SDK bundled into one ES module for a runtime without package
 * resolution (a browser, workerd); `glue` imports `sdk` and `flow` and exposes them.
 */
export async function bundle(glue) {
  const result = await build({
    stdin: {
      contents: `import * as sdk from '@app/sdk';\nimport { flow } from './flow.mjs';\n${glue}`,
      resolveDir: import.meta.dirname,
      sourcefile: 'runtime-entry.mjs',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0].text;
}
