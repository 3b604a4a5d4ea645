#!/usr/bin/env bash
# Lists the built test files of one set, sorted, one per line:
#   unit  the *.test.js under dist/src that need no server, etcd, root or child process (seconds in all);
#   e2e   the rest: dist/test, dist/bench, and the tests under dist/src listed below;
#   all   both (what `npm test` runs).
#   shared  of all, the files that may run two at a time (npm test runs them first, two in parallel);
#   alone   of all, the rest: timing-bound (leases, leader election, fault injection, kills), CPU-bound
#           (the lab) or root-level (network namespaces, mounts), run one at a time. The benchmarks' smoke runs
#           assert rows and exit codes, not figures, so they share.
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests beside their code that start a kscale server or etcd, need root (network namespaces),
# or drive child processes: they run with the e2e set.
E2E_IN_SRC=(
  dist/src/client/cache/shared_informer.test.js
  dist/src/client/rest/resource.test.js
  dist/src/lab/chaos/ha.test.js
  dist/src/proxy/nftables/session.test.js
  dist/src/storage/cacher/conformance_etcd.test.js
  dist/src/storage/etcd3/store.test.js
  dist/src/storage/etcd3/txn.test.js
  dist/src/storage/router.test.js
  dist/src/storage/sqlite/durability.test.js
  dist/src/storage/sqlite/failpoints.test.js
)

for f in "${E2E_IN_SRC[@]}"; do
  [ -f "$f" ] || echo "test_files: $f is listed but was not built (renamed?)" >&2
done

in_src_e2e() {
  local f
  for f in "${E2E_IN_SRC[@]}"; do [ "$f" = "$1" ] && return 0; done
  return 1
}

unit() {
  local f
  while IFS= read -r f; do
    if ! in_src_e2e "$f"; then echo "$f"; fi
  done < <(find dist/src -name '*.test.js' 2>/dev/null | sort)
}

e2e() {
  local f
  while IFS= read -r f; do
    if in_src_e2e "$f"; then echo "$f"; fi
  done < <(find dist/src -name '*.test.js' 2>/dev/null | sort)
  find dist/test dist/bench -name '*.test.js' 2>/dev/null | sort
}

# What must run alone (see above): path patterns over the built files.
ALONE_PATTERNS=(
  'dist/bench/proxy/main.test.js'
  'dist/test/robustness/*'
  'dist/test/e2e/ha_*'
  'dist/test/e2e/lab*'
  'dist/test/e2e/clock_jump.test.js'
  'dist/test/e2e/disk_full.test.js'
  'dist/test/e2e/deadlines.test.js'
  'dist/test/e2e/apf_fairness.test.js'
  'dist/test/e2e/http2_client.test.js'
  'dist/test/e2e/fleet*'
  'dist/test/e2e/node_join.test.js'
  'dist/test/e2e/nodelifecycle_*'
  'dist/test/e2e/proxy_*'
  'dist/test/e2e/scheduler_leader.test.js'
  'dist/test/e2e/scheduler_replay.test.js'
  'dist/test/e2e/grafana_dashboard.test.js'
  'dist/src/storage/sqlite/durability.test.js'
  'dist/src/storage/sqlite/failpoints.test.js'
  'dist/src/proxy/nftables/session.test.js'
)

alone() {
  local f p
  for p in "${ALONE_PATTERNS[@]}"; do
    # shellcheck disable=SC2053 # the pattern is meant to glob
    [[ $1 == $p ]] && return 0
  done
  return 1
}

case "${1:-all}" in
  unit) unit ;;
  e2e) e2e ;;
  all) { unit; e2e; } ;;
  shared) { unit; e2e; } | while IFS= read -r f; do alone "$f" || echo "$f"; done ;;
  alone) { unit; e2e; } | while IFS= read -r f; do alone "$f" && echo "$f"; done ;;
  *) echo "usage: $0 unit|e2e|all|shared|alone" >&2; exit 2 ;;
esac
