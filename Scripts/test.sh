#!/usr/bin/env bash
# Runs HandlerKit's whole test suite on a fresh machine: installs what the tests need beyond the
# Swift toolchain (libclang, SQLite's headers, PostgreSQL: see install-dependencies.sh), checks the
# formatting of the Swift sources against .swift-format (`swift format lint --strict`), builds the
# documentation with warnings as errors (Scripts/docs.sh: its build is the one `swift test` reuses, the
# rest takes seconds), then `swift test` beside a throwaway PostgreSQL server (Scripts/with-postgres.sh),
# which the PostgreSQL signal store's tests use. Every package trait is enabled (the PostgreSQL store
# is behind the trait PostgreSQL, off by default so that clients do not fetch postgres-nio).
# Extra arguments go to `swift test`, e.g. `bash Scripts/test.sh --filter HandlerKitTests`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh

# Formatting first, because it takes seconds (`bash Scripts/format.sh --fix` mends what it reports).
bash Scripts/format.sh

bash Scripts/docs.sh
bash Scripts/api.sh --reuse-graphs

# The test output is long, and a log viewer often shows only its end: when a test fails, the lines
# that name the failures are repeated last.
log="$(mktemp "${TMPDIR:-/tmp}/handlerkit-test.XXXXXX")"
trap 'rm -f "$log"' EXIT
status=0
bash Scripts/with-postgres.sh swift test --enable-all-traits "$@" 2>&1 | tee "$log" || status=$?
if [[ $status -ne 0 ]]; then
    echo
    echo "What failed (the lines of the output above that name a failure):"
    grep -E '✘|^error:|: error:|Fatal error|signal code' "$log" \
        | grep -vE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' | tail -n 80
fi
exit "$status"
