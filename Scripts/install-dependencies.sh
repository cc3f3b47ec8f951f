#!/usr/bin/env bash
# Installs what HandlerKit's build and tests need beyond the Swift toolchain:
#   - libclang (Debian/Ubuntu: libclang-dev), used at run time to read C headers for bindable C types.
#     The tests run against both the Swift toolchain's libclang and this system one.
#   - SQLite's headers and library (Debian/Ubuntu: libsqlite3-dev), which GRDB links on Linux for
#     HandlerKitSignals' store.
#   - PostgreSQL's server (Debian/Ubuntu: postgresql), which Scripts/with-postgres.sh starts as a
#     throwaway server for HandlerKitSignalsPostgres' tests and benchmark.
#   - Chromium (Debian: chromium), which the web dashboard's tests drive headless to load its pages,
#     click through a requeue and take screenshots.
#
# Idempotent and quiet when everything is already installed. Installs with apt-get when running as
# root on Debian/Ubuntu; otherwise explains what to do and exits non-zero.
set -euo pipefail

have_system_libclang() {
    local candidate
    for candidate in /usr/lib/llvm-*/lib/libclang.so /usr/lib64/libclang.so /usr/lib/libclang.so; do
        [[ -e "$candidate" ]] && return 0
    done
    return 1
}

have_sqlite_headers() {
    [[ -e /usr/include/sqlite3.h ]]
}

have_postgres_server() {
    local dir
    command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && return 0
    for dir in /usr/lib/postgresql/*/bin; do
        [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]] && return 0
    done
    return 1
}

have_chromium() {
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
        || command -v google-chrome >/dev/null 2>&1
}

case "$(uname -s)" in
Darwin)
    # Xcode and the Command Line Tools ship libclang.dylib.
    if ! xcrun --find clang >/dev/null 2>&1; then
        echo "install-dependencies: libclang comes with Xcode or the Command Line Tools: run xcode-select --install" >&2
        exit 1
    fi
    exit 0
    ;;
Linux) ;;
*)
    echo "install-dependencies: unsupported system $(uname -s); install libclang and set HANDLERKIT_LIBCLANG" >&2
    exit 1
    ;;
esac

missing=()
have_system_libclang || missing+=(libclang-dev)
have_sqlite_headers || missing+=(libsqlite3-dev)
have_postgres_server || missing+=(postgresql)
have_chromium || missing+=(chromium)
if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-dependencies: missing ${missing[*]} and apt-get is not available." >&2
    echo "  Install libclang, SQLite's headers and Chromium with your package manager (Fedora: dnf install clang-devel sqlite-devel chromium)," >&2
    echo "  or set HANDLERKIT_LIBCLANG to the path of libclang.so." >&2
    exit 1
fi

if [[ "$(id -u)" -ne 0 ]]; then
    echo "install-dependencies: missing ${missing[*]}. Install as root:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi

echo "install-dependencies: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-dependencies: apt-get failed to install ${missing[*]}" >&2
    exit 1
fi

if ! have_system_libclang; then
    echo "install-dependencies: libclang-dev installed but no libclang.so found under /usr/lib/llvm-*/lib" >&2
    exit 1
fi
if ! have_postgres_server; then
    echo "install-dependencies: postgresql installed but no initdb found under /usr/lib/postgresql/*/bin" >&2
    exit 1
fi
if ! have_sqlite_headers; then
    echo "install-dependencies: libsqlite3-dev installed but /usr/include/sqlite3.h is missing" >&2
    exit 1
fi
if ! have_chromium; then
    echo "install-dependencies: chromium installed but no chromium command found" >&2
    exit 1
fi
