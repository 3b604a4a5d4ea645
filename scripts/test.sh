#!/usr/bin/env bash
# Runs the test suite. With no argument (npm test): set-up, build, lint, then every *.test.js under dist/:
# the files that may share the machine two at a time, then the timing- or CPU-bound ones alone
# (scripts/test_files.sh says which are which). With `unit` (npm run test:unit) or `e2e` (npm run test:e2e): a fresh build, then that set
# only (see scripts/test_files.sh for which file is in which).
# The full spec report goes to test-results.log; the terminal gets dots and the summary.
set -uo pipefail
cd "$(dirname "$0")/.."
set_name="${1:-all}"
case "$set_name" in
  all)
    bash scripts/setup.sh || exit 1
    echo "test: lint"
    npx eslint . || exit 1
    npx prettier --check --log-level warn "**/*.{ts,js,mjs}" || exit 1
    ;;
  unit | e2e)
    echo "test: building"
    rm -rf dist
    npx tsc -p tsconfig.json || exit 1
    ;;
  *)
    echo "usage: $0 [unit|e2e]" >&2
    exit 2
    ;;
esac
# One node --test run per group: the shared files two at a time, then the files that must run alone.
run_group() {
  local group=$1 concurrency=$2 log=$3
  local -a files
  mapfile -t files < <(bash scripts/test_files.sh "$group")
  [ ${#files[@]} -eq 0 ] && return 0
  echo "test: ${#files[@]} test files ($group, $concurrency at a time)"
  node --test --test-concurrency="$concurrency" \
    --test-reporter=dot --test-reporter-destination=stdout \
    --test-reporter=spec --test-reporter-destination="$log" \
    "${files[@]}"
}
if [ "$set_name" = all ]; then
  run_group shared 2 test-results.log
  rc1=$?
  echo
  run_group alone 1 test-results-alone.log
  rc2=$?
  rc=$((rc1 != 0 || rc2 != 0))
  # One report file, the shared run's then the alone run's, and one summary over both.
  { echo; echo "=== files run alone ==="; cat test-results-alone.log; } >>test-results.log
  rm -f test-results-alone.log
else
  run_group "$set_name" 1 test-results.log
  rc=$?
fi
echo
if [ $rc -ne 0 ]; then
  echo "--- failures (full report in test-results.log) ---"
  awk '/^✖ failing tests:/{p=1} /^=== files run alone ===/{p=0} p' test-results.log | head -150
  awk '/^=== files run alone ===/{a=1} a && /^✖ failing tests:/{p=1} p' test-results.log | head -150
fi
# node's summary of each run, then their sum.
grep -E '^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms)' test-results.log
if [ "$set_name" = all ]; then
  grep -E '^ℹ (tests|pass|fail|cancelled|skipped|todo|duration_ms) ' test-results.log |
    awk '{s[$2]+=$3} END {printf "ℹ all runs: tests %d, pass %d, fail %d, cancelled %d, skipped %d, todo %d, duration_ms %.0f\n", s["tests"], s["pass"], s["fail"], s["cancelled"], s["skipped"], s["todo"], s["duration_ms"]}'
fi
exit $rc
