#!/usr/bin/env bash
# The public API of every library product, as checked-in text: API/<Product>.txt lists, sorted, one
# public declaration a line (its path, then its declaration as the compiler prints it), and one line per
# conformance, read from the compiler's symbol graphs. A change of public API is then a reviewed diff.
# The declarations of a product's SPI (`@_spi(NAME) public`: HandlerKit's HandlerKitGenerated for
# generated code, HandlerKitSignals' SignalStoreDriver for stores) are listed apart, in
# API/<Product>+<NAME>.txt, and checked the same way.
#
#   bash Scripts/api.sh            compare the lists with the code; on a difference print it and fail
#   bash Scripts/api.sh --update   rewrite the lists (commit the result with the change that caused it)
#
# The products are those `swift package describe` reports as libraries, so a new or renamed product
# needs no edit here (a list whose product is gone is reported). Symbols are those of the product's
# targets at public access (`package` declarations are not API). Every trait is enabled, so products
# behind a trait are read in full.
#
# Cost: the symbol graphs come from `swift package dump-symbol-graph`, which reuses the build (that
# of Scripts/docs.sh in Scripts/test.sh, which dumps them with SPI symbols too); with the graphs of that
# run already present (--reuse-graphs, as test.sh passes) it reads them and takes about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

update=false
reuse=false
for argument in "$@"; do
    case "$argument" in
        --update) update=true ;;
        --reuse-graphs) reuse=true ;;
        *) echo "api.sh: unknown option '$argument' (known: --update, --reuse-graphs)" >&2; exit 2 ;;
    esac
done

graphs="$(dirname "$(swift build --enable-all-traits --show-bin-path)")/symbolgraph"
if ! $reuse || [ ! -d "$graphs" ]; then
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    rm -rf "$graphs"
    # Also tries the test modules, which fail when the tests are not built: the status says nothing
    # about the products' modules, whose graphs are checked below.
    swift package --enable-all-traits dump-symbol-graph --minimum-access-level public --skip-synthesized-members \
        --include-spi-symbols --emit-extension-block-symbols >"$log" 2>&1 || true
fi

swift package --enable-all-traits describe --type json | python3 Scripts/api-lists.py "$graphs" API "$update"
