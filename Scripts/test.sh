#!/usr/bin/env bash
# Runs HandlerKit's whole test suite on a fresh machine: installs what the tests need beyond the
# Swift toolchain (libclang, see install-dependencies.sh), then `swift test`.
# Extra arguments go to `swift test`, e.g. `bash Scripts/test.sh --filter HandlerKitTests`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh
exec swift test "$@"
