#!/usr/bin/env bash
# Runs the whole test suite: set-up, build, lint, then every *.test.js under dist/.
# The full spec report goes to test-results.log; the terminal gets dots and the summary.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
echo "test: lint"
npx eslint . || exit 1
mapfile -t files < <(find dist/src dist/test dist/bench -name '*.test.js' 2>/dev/null | sort)
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
