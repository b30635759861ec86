#!/usr/bin/env python3
"""Prints a module's public API, one declaration a line, sorted, from the symbol graphs that
`swift build -emit-symbol-graph` writes (`.ci/docs` makes them): every public symbol declared in
the module's own source (the module's graph and its extensions of other modules), its
conformances, and whether it is deprecated. Members a conformance synthesizes are left out: the
conformance line stands for them.

usage: dump.py SYMBOL_GRAPH_DIR MODULE
"""
import glob
import json
import os
import sys


def declaration(symbol):
    text = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
    return " ".join(text.split())


def deprecated(symbol):
    for entry in symbol.get("availability", []):
        if entry.get("isUnconditionallyDeprecated") or "deprecated" in entry:
            renamed = entry.get("renamed")
            return f"  [deprecated{': use ' + renamed if renamed else ''}]"
    return ""


def main(directory, module):
    paths = [os.path.join(directory, f"{module}.symbols.json")]
    paths += sorted(glob.glob(os.path.join(directory, f"{module}@*.symbols.json")))
    lines = set()
    for path in paths:
        with open(path) as file:
            graph = json.load(file)
        symbols = {s["identifier"]["precise"]: s for s in graph["symbols"]}
        names = {}
        for precise, symbol in symbols.items():
            names[precise] = ".".join(symbol["pathComponents"])
        for precise, symbol in symbols.items():
            if "::SYNTHESIZED::" in precise:
                continue
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            lines.add(f"{names[precise]} ({kind}): {declaration(symbol)}{deprecated(symbol)}")
        for relation in graph["relationships"]:
            if relation["kind"] != "conformsTo" or "::SYNTHESIZED::" in relation["source"]:
                continue
            source = names.get(relation["source"])
            if source is None:
                continue
            target = names.get(relation["target"]) or relation.get("targetFallback") or relation["target"]
            if target == "Swift.SendableMetatype":  # implied by Sendable
                continue
            lines.add(f"{source} (conformance): {target}")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
