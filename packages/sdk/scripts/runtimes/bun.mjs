// The flow on Bun, from the `bun` npm package (its binary comes in @oven/bun-<platform>).
import { bin, runEntry, versionOf, withServer } from './harness.mjs';

const bun = bin('bun');
const version = versionOf(bun, ['--version'], 'bun from npm');
await withServer(`Bun ${version}`, (server) => runEntry(bun, ['run'], server));
