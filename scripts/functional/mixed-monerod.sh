#!/usr/bin/env bash
# A "monerod" for Monero's functional-test harness that mixes both kinds of daemon in one run:
# the daemon whose --rpc-bind-port (else --p2p-bind-port) is one of the harness's ports with an
# index in MIXED_TS_INDICES runs as this repo's tsmonerod, every other one as the real monerod.
#
#   MONEROD=$PWD/scripts/functional/mixed-monerod.sh bash ../shared/tools/monero-functional/run.sh
#
# The harness numbers its daemons by port: RPC 18180+i, P2P 18280+i. By default daemons 1 and 3 are
# tsmonerod and 0, 2 and 4 are monerod, so the p2p test's reorganising pair (2 and 3) holds one of
# each. Environment: MIXED_TS_INDICES (default "1 3"), TSMONEROD (default bin/tsmonerod of this
# repo), REAL_MONEROD (default /usr/bin/monerod). MIXED_LOG, if set, gets one line per launch.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ts=${TSMONEROD:-$here/bin/tsmonerod}
real=${REAL_MONEROD:-/usr/bin/monerod}
indices=${MIXED_TS_INDICES:-1 3}

index=""
prev=""
for a in "$@"; do
  case "$prev" in
    --rpc-bind-port) index=$((a - 18180)) ;;
    --p2p-bind-port) [ -z "$index" ] && index=$((a - 18280)) ;;
  esac
  case "$a" in
    --rpc-bind-port=*) index=$((${a#*=} - 18180)) ;;
  esac
  prev=$a
done

bin=$real
kind=monerod
if [ -n "$index" ]; then
  for i in $indices; do
    if [ "$i" = "$index" ]; then bin=$ts; kind=tsmonerod; fi
  done
fi
[ -n "${MIXED_LOG:-}" ] && echo "daemon ${index:-?}: $kind ($bin)" >> "$MIXED_LOG"
exec "$bin" "$@"
