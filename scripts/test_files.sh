#!/usr/bin/env bash
# Lists the built test files of one set, sorted, one per line:
#   unit  the *.test.js under dist/src that need no server, etcd, root or child process (seconds in all);
#   e2e   the rest: dist/test, dist/bench, and the tests under dist/src listed below;
#   all   both (what `npm test` runs).
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests beside their code that start a kscale server or etcd, need root (network namespaces),
# or drive child processes: they run with the e2e set.
E2E_IN_SRC=(
  dist/src/client/cache/shared_informer.test.js
  dist/src/client/rest/resource.test.js
  dist/src/proxy/nftables/session.test.js
  dist/src/storage/cacher/conformance_etcd.test.js
  dist/src/storage/etcd3/store.test.js
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

case "${1:-all}" in
  unit) unit ;;
  e2e) e2e ;;
  all) { unit; e2e; } ;;
  *) echo "usage: $0 unit|e2e|all" >&2; exit 2 ;;
esac
