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
# plus PGDATA_HANDLERKIT / PG_CTL_HANDLERKIT / PG_USER_HANDLERKIT so fault tests can restart the server.
#
# initdb refuses to run as root: as root, the server runs as the system user `postgres` when it exists,
# else as a system user `handlerkit-pg` created for it (`useradd --system`).
#
# When the server cannot start, the command still runs (other tests need no server) with
# HANDLERKIT_POSTGRES_UNAVAILABLE set to the reason: the PostgreSQL tests then fail and say why.
# Binaries come from PATH, else from /usr/lib/postgresql/<version>/bin (Debian's `postgresql`, which
# Scripts/install-dependencies.sh installs).
set -uo pipefail

if [[ $# -eq 0 ]]; then
    echo "usage: bash Scripts/with-postgres.sh COMMAND [ARGUMENT…]" >&2
    exit 2
fi

find_bin_dir() {
    local dir
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return 0
    fi
    for dir in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
        [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]] && { echo "$dir"; return 0; }
    done
    return 1
}

# Runs a command as the server's user.
as_server_user() {
    if [[ -n "${server_user:-}" ]]; then
        runuser -u "$server_user" -- "$@"
    else
        "$@"
    fi
}

unavailable=""
data_root=""
server_user=""

cleanup() {
    if [[ -n "$data_root" && -d "$data_root" ]]; then
        if [[ -f "$data_root/data/postmaster.pid" ]]; then
            as_server_user "$bin_dir/pg_ctl" -D "$data_root/data" -m immediate -w stop >/dev/null 2>&1
        fi
        rm -rf "$data_root"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_server() {
    if ! bin_dir="$(find_bin_dir)"; then
        unavailable="no PostgreSQL server binaries (initdb, pg_ctl) on PATH or under /usr/lib/postgresql/*/bin; run Scripts/install-dependencies.sh as root (installs Debian's postgresql)"
        return 1
    fi
    if [[ "$(id -u)" -eq 0 ]]; then
        if id postgres >/dev/null 2>&1; then
            server_user=postgres
        else
            id handlerkit-pg >/dev/null 2>&1 ||
                useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin handlerkit-pg ||
                { unavailable="running as root, and no unprivileged user for the server: useradd handlerkit-pg failed"; return 1; }
            server_user=handlerkit-pg
        fi
    fi
    data_root="$(mktemp -d "${TMPDIR:-/tmp}/handlerkit-postgres.XXXXXX")" || { unavailable="mktemp failed"; return 1; }
    chmod 755 "$data_root"
    [[ -n "$server_user" ]] && chown "$server_user" "$data_root"
    local log="$data_root/initdb.log"
    if ! as_server_user "$bin_dir/initdb" -D "$data_root/data" -U handlerkit --auth=trust --encoding=UTF8 --no-sync >"$log" 2>&1; then
        unavailable="initdb failed: $(tail -n 3 "$log" | tr '\n' ' ')"
        return 1
    fi
    local attempt port
    for attempt in 1 2 3 4 5 6 7 8; do
        port=$((20000 + RANDOM % 40000))
        if as_server_user "$bin_dir/pg_ctl" -D "$data_root/data" -l "$data_root/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories= -c fsync=off -c max_connections=200" \
            start >/dev/null 2>&1; then
            export HANDLERKIT_POSTGRES_URL="postgres://handlerkit@127.0.0.1:$port/postgres"
            export PGDATA_HANDLERKIT="$data_root/data" PG_CTL_HANDLERKIT="$bin_dir/pg_ctl" PG_USER_HANDLERKIT="$server_user"
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
