#!/usr/bin/env bash
# The README's first command: set up everything, then run the main job.
# Until the scale lab exists, the main job is the storage benchmark: the embedded
# store against a real single-member etcd, side by side, at equal durability.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node dist/bench/storage/main.js "$@"
