// The flow on Deno, from the `deno` npm package (its binary comes in @deno/<platform>): the SDK
// resolved by package name from node_modules, as in a Deno project with a package.json.
import { bin, runEntry, versionOf, withServer } from './harness.mjs';

const deno = bin('deno');
const version = versionOf(deno, ['--version'], 'deno from npm');
// Loopback, the SDK's files and the flow's two variables only.
const permissions = ['--no-prompt', '--allow-net=127.0.0.1', '--allow-read=.', '--allow-env'];
await withServer(version.split(' (')[0], (server) => runEntry(deno, ['run', ...permissions], server));
