# Shell functions of CI's tasks (sourced by each task of .ci/table.mjs before its command).
set -o pipefail
pnpm() { npx --yes pnpm@10.34.9 "$@"; }
note() { echo "$*" >"$TASK_NOTE"; }
skip() { note "skipped: $*"; exit 0; }
pg_url=postgres://postgres@127.0.0.1:5432/test
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }

# The README's test command (`pnpm test`) with vitest's JSON report for the count:
# run_tests <report name> [vitest options]. A file whose worker process died of a signal (the
# runtime crashed: no test failed) is run once more, and the task's line says so, with the file,
# the signal and V8's reason when it printed one; its tests are counted from that second run
# (.ci/results.mjs). A test that fails is never run again. This stays because the one crash seen
# (V8 aborting in UnregisterWasmAllocation: SIGTRAP) is a V8 defect, outside our code
# (vitest.config.ts says what of ours made it likelier, all gone since issue #26).
run_tests() {
  local name=$1
  shift
  local log="$CI_RESULTS/logs/$name.vitest.log"
  pnpm test "$@" --reporter=default --reporter=json --outputFile.json="$CI_RESULTS/$name.json" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] && return 0
  local crashed
  mapfile -t crashed < <(node .ci/results.mjs crashed "$CI_RESULTS/$name.json" "$log")
  [ "${#crashed[@]}" -gt 0 ] || return "$rc"
  local signal
  signal=$(grep -o 'Worker exited unexpectedly with signal [A-Z]*' "$log" | head -n 1 | awk '{print $NF}')
  local reason
  reason=$(grep -o 'Check failed: .*\|UnregisterWasmAllocation' "$log" | head -n 1)
  note "re-run: a worker died of ${signal:-a signal} in ${crashed[*]#"$PWD/"}${reason:+ (V8: $reason)}"
  pnpm test "$@" "${crashed[@]}" --reporter=default --reporter=json \
    --outputFile.json="$CI_RESULTS/$name-crashed-again.json" &&
    node .ci/results.mjs replace "$CI_RESULTS/$name.json" "$CI_RESULTS/$name-crashed-again.json" "${crashed[@]}"
}
