#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL server:
#
#   bash Scripts/with-postgres.sh swift test --filter Postgres
#   bash Scripts/with-postgres.sh swift run -c release handlerkit-bench signals_pg.
#
# The server lives in a new temporary data directory, listens on a free port of 127.0.0.1 only (no
# Unix socket), trusts local connections (it is reachable from this machine alone and holds nothing
# but test data), and is stopped and removed when the command ends, however it ends. The command gets
#   HANDLERKIT_POSTGRES_URL   postgres://handlerkit@127.0.0.1:<port>/postgres
# plus PGDATA_HANDLERKIT / PG_CTL_HANDLERKIT / PG_USER_HANDLERKIT so fault tests can restart the server,
# and HANDLERKIT_POSTGRES_TLS (a folder with ca.crt, the authority of the server's certificate for
# `localhost`, and other-ca.crt): the server accepts TLS and plain connections.
# How the server is made (binaries, its user when run as root): Scripts/postgres-server.sh.
#
# When the server cannot start, the command still runs (other tests need no server) with
# HANDLERKIT_POSTGRES_UNAVAILABLE set to the reason: the PostgreSQL tests then fail and say why.
set -uo pipefail

if [[ $# -eq 0 ]]; then
    echo "usage: bash Scripts/with-postgres.sh COMMAND [ARGUMENT…]" >&2
    exit 2
fi

# shellcheck source=Scripts/postgres-server.sh
source "$(dirname "$0")/postgres-server.sh"

data_root=""

cleanup() {
    if [[ -n "$data_root" && -d "$data_root" ]]; then
        pg_stop "$data_root"
        rm -rf "$data_root"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_server() {
    data_root="$(mktemp -d "${TMPDIR:-/tmp}/handlerkit-postgres.XXXXXX")" || { unavailable="mktemp failed"; return 1; }
    pg_prepare "$data_root" || return 1
    pg_make_tls "$data_root" || return 1
    local attempt port
    for attempt in 1 2 3 4 5 6 7 8; do
        port=$((20000 + RANDOM % 40000))
        if pg_start "$data_root" 127.0.0.1 "$port"; then
            export HANDLERKIT_POSTGRES_URL="postgres://handlerkit@127.0.0.1:$port/postgres"
            export PGDATA_HANDLERKIT="$data_root/data" PG_CTL_HANDLERKIT="$bin_dir/pg_ctl" PG_USER_HANDLERKIT="$server_user"
            export HANDLERKIT_POSTGRES_TLS="$data_root/tls"
            return 0
        fi
        # Most likely the port was taken: try another one.
    done
    unavailable="the server did not start on 127.0.0.1 (8 ports tried): $(tail -n 3 "$data_root/server.log" 2>/dev/null | tr '\n' ' ')"
    return 1
}

if start_server; then
    echo "with-postgres: PostgreSQL ($("$bin_dir/postgres" --version | awk '{print $3}')) at $HANDLERKIT_POSTGRES_URL" >&2
else
    echo "with-postgres: PostgreSQL unavailable: $unavailable" >&2
    export HANDLERKIT_POSTGRES_UNAVAILABLE="$unavailable"
fi
"$@"
status=$?
exit $status
