// The flow as a program, for the runtimes that run a file (Node, Bun, Deno): the built SDK by
// package name, the server from SDK_FLOW_BASE_URL and SDK_FLOW_TOKEN (set by harness.mjs).
import * as sdk from '@app/sdk';
import { flow } from './flow.mjs';

const env = (name) => globalThis.Deno?.env.get(name) ?? globalThis.process?.env[name];
const lines = await flow(sdk, { baseUrl: env('SDK_FLOW_BASE_URL'), token: env('SDK_FLOW_TOKEN') });
console.log(`${navigator.userAgent}, @app/sdk ${sdk.VERSION} from ${import.meta.resolve('@app/sdk')}`);
for (const line of lines) console.log(`  ${line}`);
