#!/usr/bin/env bash
# The README's first command: set up everything, then run the main job, the scale lab:
# `kscale up` brings up a cluster (API server, controller-manager, scheduler, hollow nodes),
# runs the default load scenario, writes a report under ./kscale-reports/ and shuts down.
# The default is the main job, 2,500 nodes × 30 pods (about 36 minutes on a 2-core machine); a quick one is
#   npm start -- --nodes 100
# and every other `kscale up` flag passes through the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh lab "$@"
# Put `kscale` on PATH, as `npm link` would, without npm touching the install: a symlink in npm's global bin
# when that folder is writable; otherwise say how to call it.
bin="$(npm prefix -g 2>/dev/null)/bin"
if [ -d "$bin" ] && [ -w "$bin" ]; then
  chmod +x dist/src/cmd/kscale.js
  ln -sf "$PWD/dist/src/cmd/kscale.js" "$bin/kscale"
else
  echo "start: kscale is not on PATH ($bin is not writable); call it as node $PWD/dist/src/cmd/kscale.js" >&2
fi
exec node dist/src/cmd/kscale.js up "$@"
