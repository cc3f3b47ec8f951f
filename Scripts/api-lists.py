"""Writes or checks API/<Product>.txt and API/<Product>+<SPI>.txt from the compiler's symbol graphs; run
by Scripts/api.sh.

Usage: swift package describe --type json | python3 Scripts/api-lists.py GRAPHS_DIR API_DIR UPDATE
GRAPHS_DIR holds <Module>.symbols.json (and <Module>@<Other>.symbols.json for extensions of other
modules' types), dumped with SPI symbols included; UPDATE is "true" to rewrite the lists, anything else
to compare them.

<Product>.txt lists what a client sees with a plain `import`. A symbol the graph flags `spi`, a member
of such a symbol, and the conformances of either, go to <Product>+<SPI>.txt instead, where <SPI> is the
name of the one `@_spi(...)` group the product's sources declare (a product whose sources declare more
than one is reported: the graphs do not say which group a symbol belongs to).
"""

import difflib
import json
import os
import re
import sys


# The most declarations (conformance lines not counted) a product's plain-import API may have: the
# app-facing signals API is kept small on purpose, and a change that grows it past this is discussed
# first (CONTRIBUTING.md, "Public API and SPI").
BUDGETS = {"HandlerKitSignals": 250}

# Conformances every type has unless it opts out, which toolchains list differently: not API changes.
IMPLIED = {"Swift.Copyable", "Swift.Escapable", "Swift.SendableMetatype", "Swift.BitwiseCopyable"}


def declaration(symbol):
    text = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
    return re.sub(r"\s+", " ", text).strip()


def module_lines(graphs, module):
    """The sorted declarations and conformances of `module` as (public, spi) lists, or None without its graph."""
    files = [name for name in os.listdir(graphs)
             if name == f"{module}.symbols.json" or (name.startswith(f"{module}@") and name.endswith(".symbols.json"))]
    if f"{module}.symbols.json" not in files:
        return None
    public, spi = set(), set()
    for name in files:
        with open(os.path.join(graphs, name), encoding="utf-8") as file:
            graph = json.load(file)
        symbols = [symbol for symbol in graph.get("symbols", []) if symbol.get("accessLevel") in ("public", "open")]
        components = {symbol["identifier"]["precise"]: tuple(symbol.get("pathComponents", [])) for symbol in symbols}
        paths = {precise: ".".join(path) for precise, path in components.items()}
        # SPI types (an extension block's path is its extended type's, which may have public members too)
        spi_paths = {components[symbol["identifier"]["precise"]] for symbol in symbols
                     if symbol.get("spi") and symbol["kind"]["identifier"] != "swift.extension"}

        def is_spi(precise):
            path = components[precise]
            return any(path[:end] in spi_paths for end in range(1, len(path) + 1))

        for symbol in symbols:
            if symbol["kind"]["identifier"] == "swift.extension":
                continue  # an extension block: its members and conformances are listed
            precise = symbol["identifier"]["precise"]
            (spi if symbol.get("spi") or is_spi(precise) else public).add(f"{paths[precise]}: {declaration(symbol)}")
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
            (spi if is_spi(relationship["source"]) else public).add(f"{source}: {verb} {target}")
    return sorted(public), sorted(spi)


def spi_names(package, modules):
    """The `@_spi(...)` group names that the sources of `modules` declare (not those they import)."""
    names = set()
    for target in package["targets"]:
        if target["name"] not in modules:
            continue
        for source in target.get("sources", []):
            with open(os.path.join(package["path"], target["path"], source), encoding="utf-8") as file:
                for line in file:
                    names.update(match.group(1) for match in re.finditer(r"@_spi\((\w+)\)(?!\s*import)", line))
    return sorted(names)


def write_or_compare(path, lines, update):
    """Writes `lines` to `path` with --update, else compares them; True when they differ without --update."""
    text = "".join(line + "\n" for line in lines)
    current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
    if current == text:
        return False
    if update:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
        print(f"api.sh: wrote {path} ({len(lines)} lines)")
        return False
    if current is None:
        print(f"api.sh: {path} is missing")
    else:
        sys.stdout.writelines(difflib.unified_diff(
            current.splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"{path} (checked in)", tofile=f"{path} (the code)"))
    return True


def main():
    graphs, directory, update = sys.argv[1], sys.argv[2], sys.argv[3] == "true"
    package = json.load(sys.stdin)
    products = [product for product in package["products"] if "library" in product["type"]]
    failed = False
    over_budget = False
    expected_files = set()
    for product in products:
        modules = product["targets"]
        public, spi = [], []
        for module in modules:
            found = module_lines(graphs, module)
            if found is None:
                print(f"api.sh: no symbol graph for module {module} of product {product['name']} in {graphs}: "
                      "does the package build? (swift build --enable-all-traits)", file=sys.stderr)
                sys.exit(1)
            prefix = f"{module}." if len(modules) > 1 else ""
            public += [prefix + line for line in found[0]]
            spi += [prefix + line for line in found[1]]
        lists = {f"{product['name']}.txt": public}
        if spi:
            names = spi_names(package, modules)
            if len(names) != 1:
                print(f"api.sh: product {product['name']} has SPI symbols and its sources declare the SPI groups "
                      f"{names or 'none'}: one group per product is listed (API/<Product>+<SPI>.txt)",
                      file=sys.stderr)
                sys.exit(1)
            lists[f"{product['name']}+{names[0]}.txt"] = spi
        budget = BUDGETS.get(product["name"])
        declared = sum(1 for line in public if ": conforms to " not in line and ": inherits from " not in line)
        if budget is not None and declared > budget:
            print(f"api.sh: {product['name']} declares {declared} public symbols, more than its budget of {budget}: "
                  "make what only stores need `@_spi(SignalStoreDriver) public` and what only the package needs "
                  "`package`, or raise the budget in Scripts/api-lists.py with a reason", file=sys.stderr)
            over_budget = True
        for name, lines in lists.items():
            expected_files.add(name)
            failed = write_or_compare(os.path.join(directory, name), lines, update) or failed
    stale = sorted(name for name in (os.listdir(directory) if os.path.isdir(directory) else [])
                   if name.endswith(".txt") and name not in expected_files)
    for name in stale:
        path = os.path.join(directory, name)
        if update:
            os.remove(path)
            print(f"api.sh: removed {path}: no library product or SPI group {name[:-4]}")
        else:
            failed = True
            print(f"api.sh: {path} lists a product or SPI group the package no longer has")
    if failed:
        print("api.sh: the public API differs from API/. If the change is intended, run "
              "`bash Scripts/api.sh --update` and commit API/ with it; otherwise restore the API.", file=sys.stderr)
        sys.exit(1)
    if over_budget:
        sys.exit(1)
    if not update:
        print(f"api.sh: the public API of {len(products)} library products matches API/")


main()
