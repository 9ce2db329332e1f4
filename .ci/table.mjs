// CI's tasks (run by .ci/tasks.mjs from .ci/run): what each runs, what it needs first, and how many
// cores it keeps busy. Never more than the machine's cores run at once; `cpus: 0` is a task that
// mostly waits (a package download). Each command runs in bash with .ci/lib.sh sourced.
const vitestJson = (name) =>
  `--reporter=default --reporter=json --outputFile.json="$CI_RESULTS/${name}.json"`;
// The SDK's flow on one runtime (packages/sdk/README.md, "Runtimes"), driven from Node 24; exit
// code 77 means the runtime cannot run on this machine, and its last line says why.
const sdkRuntime = (script) =>
  `out=$(mktemp); node_modules/node/bin/node packages/sdk/scripts/runtimes/${script} | tee "$out"
      rc=\${PIPESTATUS[0]}; why=$(tail -n 1 "$out"); rm -f "$out"
      [ "$rc" -eq 77 ] && skip "$why"; exit "$rc"`;

export default [
  // Debian's packages the tasks need: Chromium (the reference page, the SDK in a browser), HAProxy
  // (the replicas' test), PgBouncer (the pooler test), podman, runc and mmdebstrap (the container
  // image).
  {
    name: 'apt',
    cpus: 0,
    run: `missing=()
      for tool in chromium haproxy pgbouncer podman runc mmdebstrap; do
        command -v "$tool" >/dev/null || [ -x "/usr/bin/$tool" ] || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
      done
      [ "\${#missing[@]}" -eq 0 ] && skip "chromium, haproxy, pgbouncer, podman, runc and mmdebstrap are installed"
      command -v apt-get >/dev/null || skip "no apt-get"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "\${missing[@]}"`,
  },
  {
    name: 'postgres',
    cpus: 0,
    run: `pg_up && skip "already running"
      command -v pg_ctlcluster >/dev/null || skip "no PostgreSQL on this machine"
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
      for _ in $(seq 1 20); do pg_up && exit 0; sleep 0.5; done
      skip "PostgreSQL did not start"`,
  },
  { name: 'install', cpus: 2, run: 'pnpm install --frozen-lockfile' },
  // Bundles and types only: no WebAssembly runs (the test kit makes its PGlite snapshot on first use).
  { name: 'build', after: ['install'], run: 'pnpm run build' },
  { name: 'lint', after: ['install'], run: 'pnpm run lint' },
  { name: 'typecheck', after: ['install'], run: 'pnpm run typecheck' },
  { name: 'contract:lint', after: ['install'], run: 'pnpm run lint:openapi' },
  // CI-only: the committed endpoint list must equal the spec's endpoint tables (../shared, which
  // users' clones do not have).
  {
    name: 'spec',
    after: ['install'],
    report: 'spec.json',
    run: `spec=../shared/spec/marketplace-api.md
      [ -f "$spec" ] || skip "no spec file"
      MARKETPLACE_SPEC_PATH="$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")" \\
        pnpm exec vitest run --config packages/schemas/vitest.ci.config.ts ${vitestJson('spec')}`,
  },
  // The published packages: publint and arethetypeswrong on the packed tarballs, installed and run.
  { name: 'package:sdk', after: ['build'], run: 'pnpm --filter @app/sdk run check:package --no-build' },
  // The SDK's public API against its committed report (packages/sdk/etc/*.api.md, API Extractor):
  // a change to it fails here until the report is updated (`pnpm --filter @app/sdk api:update`).
  { name: 'api:sdk', after: ['build'], run: 'pnpm --filter @app/sdk run api:check' },
  { name: 'package:mcp', after: ['build'], run: 'pnpm --filter @app/mcp run check:package --no-build' },
  { name: 'package:cli', after: ['build'], run: 'pnpm --filter @app/cli run check:package --no-build' },
  // The test kit from the build (`@app/testing` by package name): its first start in a fresh cache
  // folder makes the snapshot, the next process boots from it.
  {
    name: 'test-kit',
    after: ['build'],
    run: `export MARKETPLACE_TEST_CACHE_DIR="$(mktemp -d)"; trap 'rm -rf "$MARKETPLACE_TEST_CACHE_DIR"' EXIT
      pnpm --filter @app/testing run measure:start 2 2`,
  },
  // The README's test command, on embedded PGlite: every project. The fuzzing draws half as many
  // cases per endpoint as `pnpm test` does, from a random seed of its own, as the PostgreSQL run
  // below does: a CI run draws one full run's cases, half on each database.
  {
    name: 'tests:pglite',
    after: ['build'],
    cpus: 2,
    report: 'pglite.json',
    run: 'FUZZ_RUNS_SCALE=0.5 run_tests pglite',
  },
  // The same server suites on PostgreSQL (the SDK's end-to-end tests embed PGlite), and the test
  // kit's, each of its servers on a database of its own there (packages/testing/README.md, "On
  // PostgreSQL"). The fuzzing draws half as many cases per endpoint, from a seed of its own.
  {
    name: 'tests:postgres',
    after: ['build', 'postgres'],
    cpus: 2,
    report: 'postgres.json',
    run: `pg_up || skip "no PostgreSQL at 127.0.0.1:5432"
      TEST_DATABASE_URL=$pg_url FUZZ_RUNS_SCALE=0.5 run_tests postgres --project 'server*' --project testing`,
  },
  // The published contract (README, "The published contract").
  {
    name: 'contract:prism',
    after: ['build'],
    report: 'contract.json',
    run: 'pnpm run test:contract --outputFile "$CI_RESULTS/contract.json"',
  },
  {
    name: 'contract:client',
    after: ['build'],
    report: 'client.json',
    run: `pnpm run test:client ${vitestJson('client')}`,
  },
  // Clients generated from openapi.json by @hey-api/openapi-ts and orval (fetch and axios), each
  // run through the same flow, a transition included (README, "Using the OpenAPI document").
  {
    name: 'contract:generated',
    after: ['build'],
    report: 'generated-clients.json',
    run: `pnpm run test:generated-clients ${vitestJson('generated-clients')}`,
  },
  {
    name: 'browser',
    after: ['build', 'apt'],
    report: 'browser.json',
    run: `pnpm run test:browser ${vitestJson('browser')}`,
  },
  // Faults, two instances on one database, replicas, load (docs/reliability.md).
  {
    name: 'reliability',
    after: ['build', 'postgres', 'apt'],
    cpus: 2,
    report: 'reliability.json',
    run: `pg_up || skip "no PostgreSQL at 127.0.0.1:5432"
      TEST_DATABASE_URL=$pg_url pnpm test:reliability ${vitestJson('reliability')}`,
  },
  // `pnpm bench` in its short mode, so that it cannot rot (figures only: docs/performance.md). One
  // core, though it would keep two busy: it asserts nothing, so a one-core task beside it costs it
  // only figures CI does not read, and the run a minute (1 184 s on a machine with 16 s to spare).
  {
    name: 'bench:short',
    after: ['build', 'postgres'],
    cpus: 1,
    run: `pg_up || skip "no PostgreSQL at 127.0.0.1:5432"
      BENCH_DATABASE_URL=$pg_url pnpm run bench:short:built`,
  },
  // Every package as users install it (README, "Install"): `pnpm pack:all` tarballs, installed with
  // plain npm outside the workspace (Node 24 first on PATH) and used: SDK from ESM and CommonJS,
  // the test kit in vitest, both bins, the server's bin answering /ready (scripts/check-packs.mjs).
  {
    name: 'install:packs',
    after: ['build'],
    run: `pnpm run pack:all --no-build
      PATH="$PWD/node_modules/node/bin:$PATH" node scripts/check-packs.mjs .packs`,
  },
  // The server's container image (Containerfile, docs/deploy.md) built with podman on a local
  // stand-in for node:24-bookworm-slim (Debian packages + the `node` npm package; no registry
  // here), started, and checked: /ready, a non-root user, the health check.
  {
    name: 'container',
    after: ['build', 'apt'],
    run: `command -v podman >/dev/null || skip "no podman (apt-get install podman mmdebstrap runc)"
      command -v runc >/dev/null || [ -x /usr/sbin/runc ] || skip "no runc (apt-get install runc)"
      podman image exists docker.io/library/node:24-bookworm-slim || command -v mmdebstrap >/dev/null ||
        skip "no mmdebstrap to make the base image (apt-get install mmdebstrap)"
      [ "$(id -u)" = 0 ] || skip "podman here needs root"
      scripts/container/check.sh`,
  },
  // The MCP Inspector's CLI mode against the MCP server on the test kit (downloads the Inspector).
  { name: 'mcp:inspector', after: ['build'], run: 'pnpm --filter @app/mcp run check:inspector' },
  // The built SDK on every runtime its users have, each against a real test server. These and the
  // three above come last: short tasks that fill the cores the test runs leave free.
  { name: 'sdk:node22', after: ['build'], cpus: 1, run: sdkRuntime('node.mjs 22') },
  { name: 'sdk:node24', after: ['build'], cpus: 1, run: sdkRuntime('node.mjs 24') },
  { name: 'sdk:bun', after: ['build'], cpus: 1, run: sdkRuntime('bun.mjs') },
  { name: 'sdk:deno', after: ['build'], cpus: 1, run: sdkRuntime('deno.mjs') },
  { name: 'sdk:browser', after: ['build', 'apt'], cpus: 1, run: sdkRuntime('browser.mjs') },
  { name: 'sdk:workerd', after: ['build'], cpus: 1, run: sdkRuntime('workerd.mjs') },
];
