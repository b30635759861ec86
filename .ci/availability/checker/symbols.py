"""Declaration availability: the toolchain's symbol graphs, indexed {usr: {platform: version}}."""

from .common import *  # noqa: F401,F403 (each part builds on the one before)

# ---------------------------------------------------------------------------------------------
# Declaration availability: symbol graphs → index {usr: {platform: version}}


def toolchain_key():
    proc = run(["swift", "--version"])
    if proc.returncode != 0:
        die("swift --version failed: " + proc.stderr.strip())
    text = proc.stdout + proc.stderr
    return hashlib.sha1((text + str(INDEX_FORMAT)).encode()).hexdigest()[:12], text.strip()


def host_triple():
    proc = run(["swiftc", "-print-target-info"])
    if proc.returncode != 0:
        die("swiftc -print-target-info failed: " + proc.stderr.strip())
    return json.loads(proc.stdout)["target"]["triple"]


def module_group(module):
    """Swift's standard substitutions demangle as module Swift: group the implicit modules."""
    return "Swift" if module in ("Swift", "_Concurrency", "_StringProcessing") else module


def build_index(cache_dir):
    graphs_dir = os.path.join(cache_dir, "symbolgraphs")
    triple = host_triple()
    files = {}
    for module in MODULES:
        out = os.path.join(graphs_dir, module)
        os.makedirs(out, exist_ok=True)
        proc = run([
            "swift-symbolgraph-extract", "-module-name", module, "-target", triple,
            "-output-dir", out, "-minimum-access-level", "public", "-include-spi-symbols",
        ])
        if proc.returncode != 0:
            die("swift-symbolgraph-extract -module-name %s failed:\n%s" % (module, proc.stderr))
        for name in sorted(os.listdir(out)):
            if name.endswith(".symbols.json"):
                files.setdefault(name, (module, os.path.join(out, name)))
    symbols, parents = {}, {}
    for name, (extracted, path) in sorted(files.items()):
        # "_Concurrency@Swift.symbols.json": symbols of _Concurrency (extending Swift).
        module = name.split("@")[0].split(".")[0] if "@" in name else extracted
        with open(path) as f:
            graph = json.load(f)
        for s in graph["symbols"]:
            avail = {}
            for a in s.get("availability") or []:
                domain = a.get("domain")
                if domain in APPLE and "introduced" in a:
                    avail[domain] = vjson(a["introduced"])
            symbols[s["identifier"]["precise"]] = {
                "module": module,
                "path": s["pathComponents"],
                "kind": s["kind"]["identifier"],
                "avail": avail,
                "declaration": "".join(f.get("spelling", "") for f in s.get("declarationFragments") or []),
            }
        for r in graph.get("relationships", []):
            if r["kind"] in ("memberOf", "requirementOf", "optionalRequirementOf"):
                parents.setdefault(r["source"], r["target"])

    def effective(usr, seen=()):
        s = symbols.get(usr)
        if s is None or usr in seen:
            return {}
        out = dict(s["avail"])
        parent = parents.get(usr)
        if parent:
            # A member is never more available than its parent: per platform, the later one.
            for p, v in effective(parent, seen + (usr,)).items():
                if p not in out or out[p] < v:
                    out[p] = v
        if "visionOS" not in out and "iOS" in out:
            ios = out["iOS"]
            if ios[0] >= 26:
                out["visionOS"] = ios
            elif ios[0] == 18:
                out["visionOS"] = (2, ios[1], 0)
        return out

    index = {"avail": {}, "names": {}, "types": {}, "overloads": {}}
    type_kinds = {"swift.struct", "swift.class", "swift.enum", "swift.protocol",
                  "swift.typealias", "swift.associatedtype"}
    by_declaration = {}  # (group, path, declaration text) → availability of each declaration
    for usr, s in symbols.items():
        if "::SYNTHESIZED::" in usr:
            continue
        avail = effective(usr)
        key = module_group(s["module"]) + "|" + ".".join(s["path"])
        by_declaration.setdefault((key, s["declaration"]), []).append(avail)
        if not avail:
            continue
        index["avail"][usr] = {p: list(v) for p, v in avail.items()}
        index["names"][usr] = s["module"] + "." + ".".join(s["path"])
        if s["kind"] in type_kinds:
            index["types"].setdefault(key, []).append(usr)
    # Twins: declarations with the same parent, name and declaration text (same parameter and
    # result types), e.g. FixedWidthInteger's `&*` requirement, new in Swift 6.0, beside its
    # older default implementation in a protocol extension. Matching is by exact USR; only for
    # a reference that is too new is the most permissive twin (per platform) tried as well: an
    # Apple compiler whose deployment target rules out the newer one picks the older twin.
    # Overloads that differ in their types (encode(Int) / encode(Int128)) are not twins.
    for usr in index["avail"]:
        s = symbols[usr]
        key = module_group(s["module"]) + "|" + ".".join(s["path"])
        group = by_declaration.get((key, s["declaration"]), [])
        permissive = {}
        for p in APPLE:
            versions = [a.get(p) for a in group]
            if versions and all(v is not None for v in versions):
                permissive[p] = min(versions)
        if permissive != effective(usr):
            index["overloads"][usr] = {p: list(v) for p, v in permissive.items()}
    return index


def load_index(scratch):
    key, version = toolchain_key()
    cache_dir = os.path.join(scratch, "availability")
    path = os.path.join(cache_dir, "index-%s.json" % key)
    if os.path.exists(path):
        with open(path) as f:
            index = json.load(f)
    else:
        index = build_index(cache_dir)
        os.makedirs(cache_dir, exist_ok=True)
        with open(path + ".tmp", "w") as f:
            json.dump(index, f)
        os.replace(path + ".tmp", path)
        for name in os.listdir(cache_dir):  # indexes of other toolchains or formats
            if name.startswith("index-") and name != os.path.basename(path):
                os.remove(os.path.join(cache_dir, name))
    for table in ("avail", "overloads"):
        index[table] = {u: {p: tuple(v) for p, v in a.items()} for u, a in index[table].items()}
    return index, version
