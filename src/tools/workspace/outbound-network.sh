#!/usr/bin/env bash
# Runs a command (the sandbox's bwrap, which keeps this network) in a network namespace of its own whose only way out
# is slirp4netns: outbound connections leave as the worker's own, nothing reaches the namespace from outside, the
# machine's loopback is not mapped in (--disable-host-loopback), and routes set before the command starts send every
# denied destination (private ranges, the machine's own addresses, Temporal and the gateway) into a blackhole. The
# command runs without capabilities in a user namespace below the one owning this network, so it cannot change them.
#
#   outbound-network.sh <slirp4netns> <ip> <unshare> [<ip -batch line>...] -- <command> [<argument>...]
#
# A failure to build the network exits 125 with a line starting "tollgate network:"; the command never runs then.
set -euo pipefail

fail() {
  echo "tollgate network: $*" >&2
  exit 125
}

[ "$#" -ge 4 ] || fail "usage: outbound-network.sh <slirp4netns> <ip> <unshare> [route...] -- command..."
slirp4netns=$1
ip=$2
unshare=$3
shift 3
routes=()
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
  routes+=("$1")
  shift
done
[ "$#" -gt 1 ] || fail "no command after --"
shift

folder=$(mktemp -d "${TMPDIR:-/tmp}/tollgate-network.XXXXXX")
mkfifo "$folder/inside" "$folder/go" "$folder/ready" "$folder/exit"
: >"$folder/log"
# Opened read-write, so that no open blocks; unlinked at once, so that a killed run leaves nothing behind. Descriptor
# 8 is the only writer of "exit": slirp4netns reads 9 and stops when this script ends, however it ends.
exec 5<>"$folder/inside" 6<>"$folder/go" 7<>"$folder/ready" 8<>"$folder/exit" 9<"$folder/exit" 4<>"$folder/log"
rm -rf "$folder"

# Inside the new namespaces: say so, wait until slirp4netns has built the interface, bring up loopback, set the
# routes, then run the command with none of these descriptors.
"$unshare" --user --map-root-user --net -- "$BASH" -c '
  set -eu
  ip=$1; count=$2; shift 2
  echo in >&5
  read -r go <&6
  [ "$go" = go ] || exit 125
  "$ip" link set lo up
  batch=""
  while [ "$count" -gt 0 ]; do batch="$batch$1
"; shift; count=$((count - 1)); done
  if [ -n "$batch" ]; then printf "%s" "$batch" | "$ip" -batch - || { echo "tollgate network: the routes could not be set" >&2; exit 125; }; fi
  exec 4<&- 5>&- 6<&- 7>&- 8>&- 9<&-
  exec "$@"
' tollgate-network "$ip" "${#routes[@]}" "${routes[@]}" "$@" &
inside=$!

read -r -t 10 _ <&5 || fail "the namespace did not start"
# slirp4netns joins the namespace's user namespace, which belongs to this user.
"$slirp4netns" --configure --mtu=65520 --disable-host-loopback --enable-sandbox \
  --userns-path="/proc/$inside/ns/user" --ready-fd=7 --exit-fd=9 "$inside" tap0 \
  </dev/null >/dev/null 2>&4 5>&- 6>&- 8>&- &
slirp=$!
exec 9<&-
# Ready within 10 s, or it has failed: it says why on its standard error, kept in descriptor 4.
for _ in $(seq 100); do
  if read -r -n 1 -t 0.1 _ <&7; then ready=1 && break; fi
  kill -0 "$slirp" 2>/dev/null || break
done
if [ -z "${ready:-}" ]; then
  { kill -9 "$inside" && wait "$inside"; } 2>/dev/null || true
  fail "slirp4netns ($slirp4netns) did not set up the network: $(tr '\n' ' ' <"/proc/$$/fd/4" | head -c 500)"
fi
echo go >&6
exec 4<&- 5>&- 6>&- 7>&-
status=0
wait "$inside" || status=$?
kill "$slirp" 2>/dev/null || true
exit "$status"
