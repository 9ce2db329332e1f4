// The flow on Cloudflare's workerd (the `workerd` npm package; its binary comes in
// @cloudflare/workerd-<platform>): the SDK bundled with esbuild into a module worker that runs the
// flow when asked (`POST /` with the server's URL and a token) and answers its lines. The worker
// may fetch loopback (a network service allowing "local"; workerd's default is public addresses
// only). workerd reports the port it bound through --control-fd.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle, skip, versionOf, withServer } from './harness.mjs';

// The package's API: the binary's path, and the newest compatibility date it supports (its bin
// script is a Node launcher that would not pass the control descriptor on).
const {
  default: workerd,
  compatibilityDate,
  version,
} = await import('workerd').then(
  (module) => module.default,
  (error) => skip(`workerd from npm does not load here: ${error.message}`),
);
versionOf(workerd, ['--version'], 'workerd from npm');

const worker = await bundle(`export default {
  async fetch(request) {
    try {
      return Response.json({ lines: await flow(sdk, await request.json()) });
    } catch (error) {
      return Response.json({ error: String(error?.stack ?? error) }, { status: 500 });
    }
  },
};`);
const dir = mkdtempSync(join(tmpdir(), 'sdk-workerd-'));
writeFileSync(join(dir, 'worker.js'), worker);
writeFileSync(
  join(dir, 'config.capnp'),
  `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "flow", worker = .flowWorker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "flow")],
);
const flowWorker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "${compatibilityDate}",
  globalOutbound = "loopback",
);
`,
);

// fd 3 is workerd's control channel: one JSON line per socket once it listens.
const child = spawn(workerd, ['serve', join(dir, 'config.capnp'), '--control-fd=3'], {
  stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
});
try {
  const port = await new Promise((listening, fail) => {
    let text = '';
    child.stdio[3].on('data', (chunk) => {
      text += chunk;
      for (const line of text.split('\n').slice(0, -1)) {
        const message = JSON.parse(line);
        if (message.event === 'listen' && message.socket === 'http') listening(message.port);
      }
    });
    child.on('error', fail);
    child.on('exit', (code, signal) =>
      fail(new Error(`workerd exited with ${signal ?? code} before it listened`)),
    );
  });
  await withServer(`workerd ${version}`, async (server) => {
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: JSON.stringify(server) });
    const answer = await res.json();
    if (!res.ok) throw new Error(`the worker's flow failed:\n${answer.error}`);
    return [
      `a module worker, compatibility date ${compatibilityDate}`,
      ...answer.lines.map((l) => `  ${l}`),
    ].join('\n');
  });
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}
