#!/usr/bin/env bash
# Runs the test suite. With no argument (npm test): set-up, build, lint, then every *.test.js under dist/,
# the unit set first. With `unit` (npm run test:unit) or `e2e` (npm run test:e2e): a fresh build, then that set
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
mapfile -t files < <(bash scripts/test_files.sh "$set_name")
echo "test: ${#files[@]} test files"
node --test --test-concurrency=1 \
  --test-reporter=dot --test-reporter-destination=stdout \
  --test-reporter=spec --test-reporter-destination=test-results.log \
  "${files[@]}"
rc=$?
echo
if [ $rc -ne 0 ]; then
  echo "--- failures (full report in test-results.log) ---"
  awk '/^✖ failing tests:/{p=1} p' test-results.log | head -150
fi
grep -E '^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms)' test-results.log
exit $rc
