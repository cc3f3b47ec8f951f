"""Writes or checks API/<Product>.txt from the compiler's symbol graphs; run by Scripts/api.sh.

Usage: swift package describe --type json | python3 Scripts/api-lists.py GRAPHS_DIR API_DIR UPDATE
GRAPHS_DIR holds <Module>.symbols.json (and <Module>@<Other>.symbols.json for extensions of other
modules' types); UPDATE is "true" to rewrite the lists, anything else to compare them.
"""

import difflib
import json
import os
import re
import sys


# Conformances every type has unless it opts out, which toolchains list differently: not API changes.
IMPLIED = {"Swift.Copyable", "Swift.Escapable", "Swift.SendableMetatype", "Swift.BitwiseCopyable"}


def declaration(symbol):
    text = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
    return re.sub(r"\s+", " ", text).strip()


def module_lines(graphs, module):
    """The sorted public declarations and conformances of `module`, or None without its graph."""
    files = [name for name in os.listdir(graphs)
             if name == f"{module}.symbols.json" or (name.startswith(f"{module}@") and name.endswith(".symbols.json"))]
    if f"{module}.symbols.json" not in files:
        return None
    lines = set()
    for name in files:
        with open(os.path.join(graphs, name), encoding="utf-8") as file:
            graph = json.load(file)
        paths = {}
        for symbol in graph.get("symbols", []):
            paths[symbol["identifier"]["precise"]] = ".".join(symbol.get("pathComponents", []))
        for symbol in graph.get("symbols", []):
            if symbol.get("spi") or symbol.get("accessLevel") not in ("public", "open"):
                continue
            if symbol["kind"]["identifier"] == "swift.extension":
                continue  # an extension block: its members and conformances are listed
            lines.add(f"{paths[symbol['identifier']['precise']]}: {declaration(symbol)}")
        for relationship in graph.get("relationships", []):
            if relationship.get("kind") not in ("conformsTo", "inheritsFrom"):
                continue
            source = paths.get(relationship["source"])
            if source is None:
                continue
            target = paths.get(relationship["target"]) or relationship.get("targetFallback") or relationship["target"]
            if target in IMPLIED:
                continue
            verb = "conforms to" if relationship["kind"] == "conformsTo" else "inherits from"
            lines.add(f"{source}: {verb} {target}")
    return sorted(lines)


def main():
    graphs, directory, update = sys.argv[1], sys.argv[2], sys.argv[3] == "true"
    package = json.load(sys.stdin)
    products = [product for product in package["products"] if "library" in product["type"]]
    failed = False
    expected_files = set()
    for product in products:
        modules = product["targets"]
        lines = []
        for module in modules:
            found = module_lines(graphs, module)
            if found is None:
                print(f"api.sh: no symbol graph for module {module} of product {product['name']} in {graphs}: "
                      "does the package build? (swift build --enable-all-traits)", file=sys.stderr)
                sys.exit(1)
            lines += [f"{module}.{line}" for line in found] if len(modules) > 1 else found
        text = "".join(line + "\n" for line in lines)
        path = os.path.join(directory, f"{product['name']}.txt")
        expected_files.add(os.path.basename(path))
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current == text:
            continue
        if update:
            os.makedirs(directory, exist_ok=True)
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
            print(f"api.sh: wrote {path} ({len(lines)} lines)")
            continue
        failed = True
        if current is None:
            print(f"api.sh: {path} is missing for library product {product['name']}")
        else:
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(keepends=True), text.splitlines(keepends=True),
                fromfile=f"{path} (checked in)", tofile=f"{path} (the code)"))
    stale = sorted(name for name in (os.listdir(directory) if os.path.isdir(directory) else [])
                   if name.endswith(".txt") and name not in expected_files)
    for name in stale:
        path = os.path.join(directory, name)
        if update:
            os.remove(path)
            print(f"api.sh: removed {path}: no library product {name[:-4]}")
        else:
            failed = True
            print(f"api.sh: {path} lists a product the package no longer has")
    if failed:
        print("api.sh: the public API differs from API/. If the change is intended, run "
              "`bash Scripts/api.sh --update` and commit API/ with it; otherwise restore the API.", file=sys.stderr)
        sys.exit(1)
    if not update:
        print(f"api.sh: the public API of {len(products)} library products matches API/")


main()
