#!/usr/bin/env bash
# Checks the formatting of the Swift sources against .swift-format (`swift format lint --strict`), or
# with --fix rewrites them in place. Every Swift file counts except generated code (the reference files,
# the embedded copy of the templates), the fixtures whose bytes or line numbers tests compare, and the
# snippets of the documentation, whose text is the documents' text.
#
#   bash Scripts/format.sh          # lint; fails on the first difference, naming file and line
#   bash Scripts/format.sh --fix    # format in place
set -euo pipefail
cd "$(dirname "$0")/.."

mode=(lint --strict)
case "${1:-}" in
"") ;;
--fix) mode=(--in-place) ;;
*)
    echo "usage: bash Scripts/format.sh [--fix]" >&2
    exit 2
    ;;
esac

find Sources Tests Benchmarks Plugins Package.swift -name '*.swift' -not -path '*/.build/*' \
    -not -path 'Sources/HandlerGenerator/EmbeddedTemplates.swift' \
    -not -path 'Tests/HandlerGeneratorTests/References/*' -not -path 'Tests/*/Generated/*' \
    -not -path 'Tests/*/Fixture/*' -not -path 'Tests/Fixtures/*' \
    -not -path 'Tests/DocumentationTests/Snippets/*' -print0 \
    | xargs -0 swift format "${mode[@]}" --parallel
