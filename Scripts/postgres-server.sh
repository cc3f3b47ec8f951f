# Functions that make a throwaway PostgreSQL server, for Scripts/with-postgres.sh and
# Scripts/netns-postgres.sh (source this file; it sets bin_dir, server_user and unavailable):
#
#   pg_prepare DATA_ROOT      finds the binaries, picks the server's user, runs initdb in DATA_ROOT/data
#   pg_start DATA_ROOT ADDRESSES PORT [PREFIX…]
#                             starts the server listening on ADDRESSES:PORT only (no Unix socket),
#                             run through PREFIX (e.g. `ip netns exec NAME`)
#   pg_stop DATA_ROOT [PREFIX…]   stops it at once
#   pg_make_tls DATA_ROOT     makes a test certificate authority and a server certificate for
#                             `localhost` in DATA_ROOT/tls (ca.crt, other-ca.crt: a CA that signed
#                             nothing of this server), and has pg_start turn TLS on (ssl=on; plain
#                             connections are still accepted)
#
# The server trusts every connection (it is reachable from this machine alone and holds nothing but
# test data). initdb refuses to run as root: as root, the server runs as the system user `postgres`
# when it exists, else as a system user `handlerkit-pg` created for it (`useradd --system`).
# Binaries come from PATH, else from /usr/lib/postgresql/<version>/bin (Debian's `postgresql`, which
# Scripts/install-dependencies.sh installs). On failure the functions return 1 with `unavailable`
# set to the reason.

bin_dir=""
server_user=""
unavailable=""
tls_options=""

pg_find_bin_dir() {
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
pg_as_server_user() {
    if [[ -n "${server_user:-}" ]]; then
        runuser -u "$server_user" -- "$@"
    else
        "$@"
    fi
}

pg_prepare() {
    local data_root="$1"
    if ! bin_dir="$(pg_find_bin_dir)"; then
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
    chmod 755 "$data_root"
    [[ -n "$server_user" ]] && chown "$server_user" "$data_root"
    local log="$data_root/initdb.log"
    if ! pg_as_server_user "$bin_dir/initdb" -D "$data_root/data" -U handlerkit --auth=trust --encoding=UTF8 --no-sync >"$log" 2>&1; then
        unavailable="initdb failed: $(tail -n 3 "$log" | tr '\n' ' ')"
        return 1
    fi
}

# max_connections: the test suites run in parallel, each store with its pool, its runs' own
# connections and its wake-up listener, and the process tests start probes with stores of their own.
pg_start() {
    local data_root="$1" addresses="$2" port="$3"
    shift 3
    local as_user=()
    [[ -n "$server_user" ]] && as_user=(runuser -u "$server_user" --)
    "$@" "${as_user[@]}" "$bin_dir/pg_ctl" -D "$data_root/data" -l "$data_root/server.log" -w -t 60 \
        -o "-c listen_addresses=$addresses -c port=$port -c unix_socket_directories= -c fsync=off -c max_connections=300$tls_options" \
        start >/dev/null 2>&1
}

pg_stop() {
    local data_root="$1"
    shift
    [[ -f "$data_root/data/postmaster.pid" ]] || return 0
    local as_user=()
    [[ -n "$server_user" ]] && as_user=(runuser -u "$server_user" --)
    "$@" "${as_user[@]}" "$bin_dir/pg_ctl" -D "$data_root/data" -m immediate -w stop >/dev/null 2>&1
}

pg_make_tls() {
    local dir="$1/tls" log="$1/tls.log"
    if ! command -v openssl >/dev/null 2>&1; then
        unavailable="openssl is missing (it makes the test server's certificates); install the openssl package"
        return 1
    fi
    mkdir -p "$dir" || { unavailable="cannot create $dir"; return 1; }
    local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    if ! {
        openssl req -x509 "${ec[@]}" -days 7 -subj "/CN=HandlerKit test CA" -keyout "$dir/ca.key" -out "$dir/ca.crt" &&
            openssl req -x509 "${ec[@]}" -days 7 -subj "/CN=Another CA" -keyout "$dir/other-ca.key" -out "$dir/other-ca.crt" &&
            openssl req "${ec[@]}" -subj "/CN=localhost" -keyout "$dir/server.key" -out "$dir/server.csr" &&
            printf 'subjectAltName=DNS:localhost\n' >"$dir/server.ext" &&
            openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 7 \
                -extfile "$dir/server.ext" -out "$dir/server.crt"
    } >"$log" 2>&1; then
        unavailable="openssl could not make the test certificates: $(tail -n 3 "$log" | tr '\n' ' ')"
        return 1
    fi
    chmod 600 "$dir/server.key"
    [[ -n "$server_user" ]] && chown "$server_user" "$dir/server.key" "$dir/server.crt"
    chmod 755 "$dir"
    tls_options=" -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key"
}
