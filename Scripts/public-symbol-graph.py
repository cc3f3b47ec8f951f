"""Copies symbol graphs without their SPI symbols; run by Scripts/docs.sh.

Usage: python3 Scripts/public-symbol-graph.py OUTPUT_DIR GRAPH...
Each GRAPH (a <Module>.symbols.json dumped with --include-spi-symbols) is written to OUTPUT_DIR under
its own name, without the symbols the graph flags `spi`, their members, and the relationships that
name any of them, so that DocC documents what a client sees with a plain `import`.
"""

import json
import os
import sys


def main():
    output, graphs = sys.argv[1], sys.argv[2:]
    for path in graphs:
        with open(path, encoding="utf-8") as file:
            graph = json.load(file)
        symbols = graph.get("symbols", [])
        # SPI types (an extension block's path is its extended type's, which may have public members too)
        spi_paths = {tuple(symbol.get("pathComponents", [])) for symbol in symbols
                     if symbol.get("spi") and symbol["kind"]["identifier"] != "swift.extension"}

        def is_spi(symbol):
            components = tuple(symbol.get("pathComponents", []))
            return symbol.get("spi") or any(components[:end] in spi_paths for end in range(1, len(components)))

        removed = {symbol["identifier"]["precise"] for symbol in symbols if is_spi(symbol)}
        graph["symbols"] = [symbol for symbol in symbols if symbol["identifier"]["precise"] not in removed]
        graph["relationships"] = [
            relationship for relationship in graph.get("relationships", [])
            if relationship["source"] not in removed and relationship["target"] not in removed]
        with open(os.path.join(output, os.path.basename(path)), "w", encoding="utf-8") as file:
            json.dump(graph, file)


main()
