#!/usr/bin/env bash
# A PostgreSQL server in a network namespace of its own, joined by veth links to two "host"
# namespaces and to the namespace this script runs in, for tests that cut a host off the network:
#
#   bash Scripts/netns-postgres.sh INFO_FILE STOP_FILE
#
# Needs root (`ip netns add`). With a random PREFIX (hk + 5 digits) and subnet 10.N.0.0/16:
#   namespace PREFIX-pg   the server, listening on 10.N.0.1, 10.N.1.1 and 10.N.2.1 (port 5432) only
#   namespace PREFIX-h1   host 1, 10.N.1.2, its link to the server PREFIX-1h (cut it: ip -n PREFIX-h1 link set PREFIX-1h down)
#   namespace PREFIX-h2   host 2, 10.N.2.2
#   this namespace        10.N.0.2
# Then it writes INFO_FILE (`name=value` lines: prefix, server_namespace, host1_namespace,
# host2_namespace, host1_link, url_local, url_host1, url_host2), and waits until STOP_FILE exists or
# the process that started it ends. Then, or when it fails or is killed (not with SIGKILL), it
# stops the server and removes the namespaces, links and data. When something cannot be made it
# writes `unavailable=REASON` to INFO_FILE and exits 1.
set -uo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: bash Scripts/netns-postgres.sh INFO_FILE STOP_FILE" >&2
    exit 2
fi
info="$1"
stop_file="$2"
watched=$PPID

# shellcheck source=Scripts/postgres-server.sh
source "$(dirname "$0")/postgres-server.sh"

prefix="hk$((10000 + RANDOM % 90000))"
net="10.$((100 + RANDOM % 150))"
server_ns="$prefix-pg"
data_root=""

cleanup() {
    if [[ -n "$data_root" && -d "$data_root" ]]; then
        pg_stop "$data_root" ip netns exec "$server_ns"
        rm -rf "$data_root"
    fi
    # Deleting a namespace deletes the veth ends in it, and so their peers.
    for ns in "$server_ns" "$prefix-h1" "$prefix-h2"; do
        ip netns delete "$ns" 2>/dev/null
    done
    ip link delete "$prefix-0l" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

fail() {
    printf 'unavailable=%s\n' "$1" >"$info.tmp" && mv "$info.tmp" "$info"
    exit 1
}

[[ "$(id -u)" -eq 0 ]] || fail "network namespaces need root (ip netns add); run the tests as root"
command -v ip >/dev/null 2>&1 || fail "the ip command (iproute2) is missing"
ip netns add "$server_ns" 2>/dev/null || fail "ip netns add is not permitted here (a container without CAP_SYS_ADMIN?)"
ip netns add "$prefix-h1" && ip netns add "$prefix-h2" || fail "ip netns add failed"
ip -n "$server_ns" link set lo up
# Host links: NAMEs end in s (server side) and h (host side).
for host in 1 2; do
    ip link add "$prefix-${host}s" netns "$server_ns" type veth peer name "$prefix-${host}h" netns "$prefix-h$host" ||
        fail "cannot create a veth link (ip link add … type veth)"
    ip -n "$server_ns" addr add "$net.$host.1/24" dev "$prefix-${host}s"
    ip -n "$prefix-h$host" addr add "$net.$host.2/24" dev "$prefix-${host}h"
    ip -n "$prefix-h$host" link set lo up
    ip -n "$server_ns" link set "$prefix-${host}s" up
    ip -n "$prefix-h$host" link set "$prefix-${host}h" up
done
# The link to this namespace, for the test's own checks.
ip link add "$prefix-0l" type veth peer name "$prefix-0s" netns "$server_ns" || fail "cannot create a veth link"
ip addr add "$net.0.2/24" dev "$prefix-0l"
ip -n "$server_ns" addr add "$net.0.1/24" dev "$prefix-0s"
ip link set "$prefix-0l" up
ip -n "$server_ns" link set "$prefix-0s" up

data_root="$(mktemp -d "${TMPDIR:-/tmp}/handlerkit-netns-postgres.XXXXXX")" || fail "mktemp failed"
pg_prepare "$data_root" || fail "$unavailable"
# initdb trusts local connections only; these come over the namespaces' links.
echo "host all all $net.0.0/16 trust" >>"$data_root/data/pg_hba.conf"
pg_start "$data_root" "$net.0.1,$net.1.1,$net.2.1" 5432 ip netns exec "$server_ns" ||
    fail "the server did not start in namespace $server_ns: $(tail -n 3 "$data_root/server.log" 2>/dev/null | tr '\n' ' ')"

cat >"$info.tmp" <<INFO
prefix=$prefix
server_namespace=$server_ns
host1_namespace=$prefix-h1
host2_namespace=$prefix-h2
host1_link=$prefix-1h
url_local=postgres://handlerkit@$net.0.1:5432/postgres
url_host1=postgres://handlerkit@$net.1.1:5432/postgres
url_host2=postgres://handlerkit@$net.2.1:5432/postgres
INFO
mv "$info.tmp" "$info"

while [[ ! -e "$stop_file" ]] && kill -0 "$watched" 2>/dev/null; do
    sleep 0.2
done
