"""References from the type-checked AST, and the availability scopes around them."""

from .conditions import *  # noqa: F401,F403 (each part builds on the one before)

# ---------------------------------------------------------------------------------------------
# References from the AST


def availability_specs(conditions, kind):
    """{platform: version} raised by the `#available` (kind) queries among `conditions`."""
    out = {}
    for c in conditions or []:
        if isinstance(c, dict) and c.get("_kind") == kind:
            for q in c.get("queries", []):
                if q.get("domain") in APPLE and q.get("version"):
                    v = vtuple(q["version"])
                    if out.get(q["domain"], (0, 0, 0)) < v:
                        out[q["domain"]] = v
    return out


def raised(ctx, specs):
    if not specs:
        return ctx
    out = dict(ctx)
    for p, v in specs.items():
        if out.get(p, (0, 0, 0)) < v:
            out[p] = v
    return out


FOREVER = (10**6, 0, 0)
DECL_SIGNATURE_KINDS = {"func_decl", "constructor_decl", "subscript_decl"}


def collect_references(ast):
    """[(offset, ("usr", usr) or ("type", mangled name), context {platform: version})]."""
    refs = []

    def add(offset, what, ctx):
        if offset is not None and what[1]:
            refs.append((offset, what, ctx))

    def decl_attrs(node, ctx):
        specs = {}
        for a in node.get("attrs") or []:
            if not isinstance(a, dict) or a.get("_kind") != "available_attr":
                continue
            domain = a.get("domain")
            if a.get("unavailable"):
                for p in (APPLE if domain == "*" else (domain,)):
                    if p in APPLE:
                        specs[p] = FOREVER
            elif domain in APPLE and a.get("introduced"):
                v = vtuple(a["introduced"])
                if specs.get(domain, (0, 0, 0)) < v:
                    specs[domain] = v
        return raised(ctx, specs)

    def requirement_keys(sig):
        keys = set()
        for r in (sig or {}).get("generic_reqs", []) or []:
            keys.add(json.dumps(r, sort_keys=True))
        return keys

    def walk(node, ctx, at, outer_reqs):
        if isinstance(node, list):
            for item in node:
                walk(item, ctx, at, outer_reqs)
                # `guard #available(…) else {…}`: the rest of the scope runs where it holds.
                if isinstance(item, dict) and item.get("_kind") == "guard_stmt":
                    ctx = raised(ctx, availability_specs(item.get("conditions"), "#available"))
            return
        if not isinstance(node, dict):
            return
        kind = node.get("_kind", "")
        rng = node.get("range")
        if isinstance(rng, dict) and "start" in rng and "buffer_id" not in rng:
            at = rng["start"]  # (a macro expansion's own buffer: keep the enclosing location)
        implicit = bool(node.get("implicit"))

        if kind.endswith("_decl") or kind == "typealias":
            ctx = decl_attrs(node, ctx)
            if not implicit:
                if kind in DECL_SIGNATURE_KINDS:
                    params = (node.get("params") or {}).get("params") or []
                    for p in params:
                        add(at, ("type", p.get("interface_type")), ctx)
                    add(at, ("type", node.get("result")), ctx)
                    add(at, ("type", node.get("thrown_type")), ctx)
                if kind == "typealias":
                    add(at, ("type", node.get("type")), ctx)
                if kind == "extension_decl":
                    add(at, ("type", node.get("extended_type")), ctx)
                inherits = node.get("inherits") or {}
                for c in inherits.get("conformances") or []:
                    if c.get("source_kind") == "explicit":
                        add(at, ("usr", c.get("protocol")), ctx)
                add(at, ("type", inherits.get("superclass_type")), ctx)
                sig = node.get("generic_signature")
                if isinstance(sig, dict):
                    own = requirement_keys(sig)
                    for r in sig.get("generic_reqs") or []:
                        if json.dumps(r, sort_keys=True) in outer_reqs:
                            continue  # the enclosing declaration's requirement, reported there
                        add(at, ("usr", r.get("protocol")), ctx)
                        add(at, ("type", r.get("first_type")), ctx)
                        add(at, ("type", r.get("second_type")), ctx)
                    outer_reqs = outer_reqs | own
        elif kind == "pattern_typed":
            add(at, ("type", node.get("type")), ctx)
        elif kind == "type_expr" and not implicit:
            add(at, ("type", node.get("type")), ctx)

        decl = node.get("decl")
        if isinstance(decl, dict) and kind != "captured_value":
            add(at, ("usr", decl.get("decl_usr")), ctx)

        for key, value in node.items():
            if key in ("decl", "attrs", "generic_signature", "captures", "parsed_root"):
                continue
            if kind == "for_each_stmt" and key in ("iterator_var", "next_call"):
                continue  # the compiler picks next() / next(isolation:) by availability
            child_ctx = ctx
            if kind == "if_stmt" and key == "then_stmt":
                child_ctx = raised(ctx, availability_specs(node.get("conditions"), "#available"))
            elif kind == "if_stmt" and key == "else_stmt":
                child_ctx = raised(ctx, availability_specs(node.get("conditions"), "#unavailable"))
            elif kind == "guard_stmt" and key == "body":
                child_ctx = raised(ctx, availability_specs(node.get("conditions"), "#unavailable"))
            walk(value, child_ctx, at, outer_reqs)

    walk(ast, {}, None, frozenset())
    return refs


def demangle_types(mangled_names):
    """{mangled type: [(group, dotted path)]}: the nominal types, protocols and associated
    types a mangled type names, from `swift-demangle --tree-only`."""
    names = sorted(set(m for m in mangled_names if m and m.startswith("$s")))
    if not names:
        return {}
    proc = run(["swift-demangle", "--tree-only"], input_text="\n".join(names) + "\n")
    if proc.returncode != 0:
        die("swift-demangle failed: " + proc.stderr)
    result = {}
    nominal = {"Structure", "Class", "Enum", "Protocol", "TypeAlias", "OtherNominalType"}

    def parse_tree(lines):
        root = {"kind": "", "text": None, "children": []}
        stack = [(-1, root)]
        for line in lines:
            m = re.match(r"(\s*)kind=(\w+)(?:, text=\"(.*)\")?", line)
            if not m:
                continue
            depth = len(m.group(1))
            node = {"kind": m.group(2), "text": m.group(3), "children": []}
            while stack[-1][0] >= depth:
                stack.pop()
            stack[-1][1]["children"].append(node)
            stack.append((depth, node))
        return root

    def path_of(node):
        """(module, [names]) of a nominal node, or None."""
        children = node["children"]
        if len(children) < 2:
            return None
        context, ident = children[0], children[1]
        if ident["kind"] != "Identifier":
            return None
        if context["kind"] == "Module":
            return context["text"], [ident["text"]]
        if context["kind"] in nominal:
            inner = path_of(context)
            return None if inner is None else (inner[0], inner[1] + [ident["text"]])
        return None

    def visit(node, found):
        kind = node["kind"]
        if kind in nominal:
            p = path_of(node)
            if p:
                found.append((module_group(p[0]), ".".join(p[1])))
        elif kind == "DependentAssociatedTypeRef":
            ident = next((c for c in node["children"] if c["kind"] == "Identifier"), None)
            proto = None
            for c in node["children"]:
                stack = [c]
                while stack and proto is None:
                    x = stack.pop()
                    if x["kind"] == "Protocol":
                        proto = path_of(x)
                    stack.extend(x["children"])
            if ident and proto:
                found.append((module_group(proto[0]), ".".join(proto[1] + [ident["text"]])))
        for c in node["children"]:
            visit(c, found)

    current, lines = None, []

    def flush():
        if current is not None:
            found = []
            visit(parse_tree(lines), found)
            result[current] = found

    for line in proc.stdout.split("\n"):
        m = re.match(r"Demangling for (\S+)", line)
        if m:
            flush()
            current, lines = m.group(1), []
        else:
            lines.append(line)
    flush()
    return result
