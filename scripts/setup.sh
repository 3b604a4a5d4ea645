#!/usr/bin/env bash
# Installs everything kscale needs on a fresh Debian machine of this kind, then builds.
# Idempotent: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

# `setup.sh` (npm test) installs everything; `setup.sh lab [kscale up flags]` (npm start) only what that run needs:
# nothing from Debian, unless the lab is to run etcd itself (--lab-etcd main|main+events).
profile="${1:-all}"
[ $# -gt 0 ] && shift
need_pkgs=()
lab_etcd=0
lab_prometheus=0
lab_ha=0
for a in "$@"; do
  case "$a" in --lab-etcd=main* | main | main+events) lab_etcd=1 ;; --prometheus) lab_prometheus=1 ;; esac
  # The HA lab (docs/ha.md): an etcd cluster and HAProxy in front of the API servers.
  case "$a" in --etcd-members* | --apiservers*) lab_etcd=1 lab_ha=1 ;; esac
done
if [ "$profile" = all ] || [ "$lab_etcd" = 1 ]; then
  command -v etcd >/dev/null 2>&1 || need_pkgs+=(etcd-server etcd-client)
fi
if [ "$profile" = all ] || [ "$lab_ha" = 1 ]; then
  command -v haproxy >/dev/null 2>&1 || need_pkgs+=(haproxy)
fi
if [ "$profile" = all ]; then
  command -v strace >/dev/null 2>&1 || need_pkgs+=(strace)
  # Clock-jump tests run the controller-manager under libfaketime.
  command -v faketime >/dev/null 2>&1 || need_pkgs+=(faketime)
  # The service proxy programs a real kernel: iptables (legacy and nft), nftables, conntrack, ipset, ipvsadm.
  command -v iptables-legacy >/dev/null 2>&1 || need_pkgs+=(iptables)
  command -v nft >/dev/null 2>&1 || need_pkgs+=(nftables)
  command -v conntrack >/dev/null 2>&1 || need_pkgs+=(conntrack)
  command -v ipset >/dev/null 2>&1 || need_pkgs+=(ipset)
  command -v ipvsadm >/dev/null 2>&1 || need_pkgs+=(ipvsadm)
  # The official Python client, for the e2e test of its watch helper (Debian's /usr/bin/python3).
  /usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || need_pkgs+=(python3-kubernetes)
  # The lab's HTML report is checked in headless Debian chromium.
  command -v chromium >/dev/null 2>&1 || need_pkgs+=(chromium)
fi
# kscale up --prometheus and the Grafana dashboard test run Debian's prometheus binary (never its service).
if [ "$profile" = all ] || [ "$lab_prometheus" = 1 ]; then
  command -v prometheus >/dev/null 2>&1 || need_pkgs+=(prometheus)
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_pkgs[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null 2>&1 || true
  # Retried while another apt holds the dpkg lock.
  for try in 1 2 3 4 5; do
    $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null && break
    [ "$try" = 5 ] && exit 1
    sleep 10
  done
  # The packaged haproxy service would hold no port kscale uses, but is not needed either.
  $SUDO systemctl stop haproxy >/dev/null 2>&1 || true
  # The packaged etcd service may start on 2379; kscale never uses that instance.
  $SUDO systemctl stop etcd >/dev/null 2>&1 || true
  $SUDO systemctl stop prometheus prometheus-node-exporter >/dev/null 2>&1 || true
fi

# npm ci builds better-sqlite3 from source (about 80 s) on a fresh machine.
stamp=node_modules/.kscale-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  cp package-lock.json "$stamp"
fi

echo "setup: building"
rm -rf dist
npx tsc -p tsconfig.json
