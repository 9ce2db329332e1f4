// CI's tasks (run by .ci/tasks.mjs from .ci/run): what each runs, what it needs first, and how many
// cores it keeps busy. Never more than the machine's cores run at once; `cpus: 0` is a task that
// mostly waits (a package download). Each command runs in bash with .ci/lib.sh sourced.
const vitestJson = (name) =>
  `--reporter=default --reporter=json --outputFile.json="$CI_RESULTS/${name}.json"`;

export default [
  // The reference page's browser test needs Debian's Chromium, the replicas' test HAProxy and
  // (with the pooler test) PgBouncer.
  {
    name: 'apt',
    cpus: 0,
    run: `missing=(); [ -x /usr/bin/chromium ] || missing+=(chromium)
      command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
      command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
      [ "\${#missing[@]}" -eq 0 ] && skip "chromium, haproxy and pgbouncer are installed"
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
  // The build writes the test kit's PGlite snapshot (WebAssembly, scripts/write-test-snapshot.ts);
  // V8 itself aborted there once (`# Fatal error in … UnregisterWasmAllocation`, Node 24.21): only
  // such an abort of the runtime runs it once more, and the task's line says so.
  {
    name: 'build',
    after: ['install'],
    run: `pnpm run build 2>&1 | tee "$CI_RESULTS/logs/build.first-try.log" && exit 0
      grep -q '# Fatal error in' "$CI_RESULTS/logs/build.first-try.log" || exit 1
      note "re-run: V8 aborted (# Fatal error in …) while the build ran"
      pnpm run build`,
  },
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
  { name: 'package:sdk', after: ['build'], run: 'pnpm --filter @app/sdk run check:package' },
  { name: 'package:mcp', after: ['build'], run: 'pnpm --filter @app/mcp run check:package' },
  { name: 'package:cli', after: ['build'], run: 'pnpm --filter @app/cli run check:package' },
  // The test kit from the build (`@app/server/testing` by package name, the shipped snapshot).
  { name: 'test-kit', after: ['build'], run: 'pnpm --filter @app/server run measure:test-kit 1 2' },
  // The README's test command, on embedded PGlite: every project.
  { name: 'tests:pglite', after: ['build'], cpus: 2, report: 'pglite.json', run: 'run_tests pglite' },
  // The same server suites on PostgreSQL (the SDK's end-to-end tests embed PGlite). The fuzzing
  // draws half as many cases per endpoint, from a seed of its own.
  {
    name: 'tests:postgres',
    after: ['build', 'postgres'],
    cpus: 2,
    report: 'postgres.json',
    run: `pg_up || skip "no PostgreSQL at 127.0.0.1:5432"
      TEST_DATABASE_URL=$pg_url FUZZ_RUNS_SCALE=0.5 run_tests postgres --project 'server*'`,
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
  // `pnpm bench` in its short mode, so that it cannot rot (figures only: docs/performance.md).
  {
    name: 'bench:short',
    after: ['build', 'postgres'],
    cpus: 2,
    run: `pg_up || skip "no PostgreSQL at 127.0.0.1:5432"
      BENCH_DATABASE_URL=$pg_url pnpm run bench:short`,
  },
];
