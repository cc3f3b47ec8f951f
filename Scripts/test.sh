#!/usr/bin/env bash
# Runs HandlerKit's whole test suite on a fresh machine: installs what the tests need beyond the
# Swift toolchain (libclang, see install-dependencies.sh), then `swift test` beside a throwaway
# PostgreSQL server (Scripts/with-postgres.sh), which the PostgreSQL signal store's tests use.
# Extra arguments go to `swift test`, e.g. `bash Scripts/test.sh --filter HandlerKitTests`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh
exec bash Scripts/with-postgres.sh swift test "$@"
