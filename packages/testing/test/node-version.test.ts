/** The kit on a Node.js older than the server needs: one line, not a crash of its dependencies. */
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';

/** `process.versions.node` as an older Node.js reports it, set before anything else loads. */
const pretendNode = (version: string) => [
  '--import',
  `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`,
];

it('a Node.js older than 22.17: startTestServer() rejects with one line naming the version', async () => {
  const script = `import('@app/testing').then(({ startTestServer }) => startTestServer()).then(
    () => console.log('started'),
    (error) => console.log('rejected: ' + error.message),
  )`;
  const child = spawn(
    process.execPath,
    [
      ...pretendNode('22.16.0'),
      '--conditions=@app/source',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ],
    { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  child.stdout?.on('data', (d) => (stdout += d));
  await new Promise((resolve) => child.on('close', resolve));
  expect(stdout).toBe('rejected: @app/testing needs Node.js 22.17.0 or newer; this is Node.js 22.16.0\n');
});
