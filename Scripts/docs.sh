#!/usr/bin/env bash
# Builds the documentation of every DocC catalog under Sources/ (Sources/<Target>/<Name>.docc), each
# against the symbol graph of its own module, with the toolchain's `docc`. Any warning fails the build
# (--warnings-as-errors), so a broken symbol link or a misnamed article stops it.
#
# The toolchain's docc rather than swift-docc-plugin: Swift toolchains ship docc (on macOS
# `xcrun docc`), so building the docs resolves and fetches nothing, and Package.swift gains no
# dependency that only documentation uses. (SwiftPM 6.3 does not fetch a dependency that no product a
# client uses needs, so clients would not have paid for the plugin with it; older SwiftPM versions
# and Xcode were not checked.) What the plugin adds, a preview server, is `docc preview` with the
# arguments this script passes to `docc convert`.
#
# Output: .build/docs/<Module>.doccarchive, laid out for static hosting. To read one locally:
#   python3 -m http.server --directory .build/docs/HandlerKit.doccarchive   # then /documentation/handlerkit
# Options: --hosting-base-path PATH (for a site served below its root, e.g. the repository name).
set -euo pipefail
cd "$(dirname "$0")/.."

hosting=()
while [ $# -gt 0 ]; do
    case "$1" in
        --hosting-base-path) hosting=(--hosting-base-path "$2"); shift 2 ;;
        *) echo "docs.sh: unknown option '$1' (known: --hosting-base-path PATH)" >&2; exit 2 ;;
    esac
done

if command -v docc >/dev/null; then
    docc=$(command -v docc)
elif [ -x "$(dirname "$(command -v swift)")/docc" ]; then
    docc="$(dirname "$(command -v swift)")/docc"
elif command -v xcrun >/dev/null && xcrun --find docc >/dev/null 2>&1; then
    docc=$(xcrun --find docc)
else
    echo "docs.sh: no docc found: it ships with Swift toolchains (Linux: next to swift; macOS: xcrun docc)" >&2
    exit 1
fi

catalogs=()
while IFS= read -r catalog; do catalogs+=("$catalog"); done < <(find Sources -name '*.docc' -type d -prune | sort)
if [ ${#catalogs[@]} -eq 0 ]; then
    echo "docs.sh: no .docc catalog under Sources/" >&2
    exit 1
fi

# Build first, so that a compile error stops here with the compiler's message.
# Every trait enabled (the PostgreSQL store is behind one), as Scripts/test.sh builds, so that the
# tests reuse this build.
swift build --enable-all-traits

# Symbol graphs into a fresh directory so no stale graph is read. The command also tries the test
# modules, which fail when the tests are not built (as on a fresh clone): its status says nothing about
# the modules documented here, so each catalog's graph is checked below instead. The graphs include the
# SPI symbols, which Scripts/api.sh --reuse-graphs lists from this one dump; each catalog is built from
# a copy without them (Scripts/public-symbol-graph.py), so the documentation shows public API only.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
graphs="$(dirname "$(swift build --enable-all-traits --show-bin-path)")/symbolgraph"
rm -rf "$graphs"
swift package --enable-all-traits dump-symbol-graph --minimum-access-level public --skip-synthesized-members \
    --include-spi-symbols --emit-extension-block-symbols >"$work/dump-symbol-graph.log" 2>&1 || true

output=.build/docs
mkdir -p "$output"
for catalog in "${catalogs[@]}"; do
    target=$(echo "$catalog" | cut -d/ -f2)
    module=${target//[^A-Za-z0-9_]/_}
    if [ ! -f "$graphs/$module.symbols.json" ]; then
        tail -n 20 "$work/dump-symbol-graph.log" >&2
        echo "docs.sh: $catalog: no symbol graph for module $module (is Sources/$target a target with public API?)" >&2
        exit 1
    fi
    mkdir -p "$work/$module"
    python3 Scripts/public-symbol-graph.py "$work/$module" "$graphs/$module.symbols.json" \
        $(find "$graphs" -maxdepth 1 -name "$module@*.symbols.json")
    echo "docs.sh: $catalog -> $output/$module.doccarchive"
    rm -rf "$output/$module.doccarchive"
    "$docc" convert "$catalog" \
        --additional-symbol-graph-dir "$work/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "handlerkit.$module" \
        --output-path "$output/$module.doccarchive" \
        --warnings-as-errors \
        ${hosting[@]+"${hosting[@]}"}
done
echo "docs.sh: ${#catalogs[@]} catalog(s) built without warnings"
