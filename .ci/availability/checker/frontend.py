"""Dumping the AST of a module with the flags SwiftPM used."""

from .references import *  # noqa: F401,F403 (each part builds on the one before)

# ---------------------------------------------------------------------------------------------
# Dumping the AST of a module


def frontend_command(build_flags, sources, outputs):
    """The swift-frontend command the driver would run to -dump-ast, with every source a
    primary file (one type-check for the whole module, one JSON per file)."""
    probe = ["swiftc", "-###", "-dump-ast", "-dump-ast-format", "json"] + build_flags + [sources[0]]
    proc = run(probe)
    if proc.returncode != 0:
        die("swiftc -### failed:\n" + proc.stderr)
    first = next((l for l in proc.stdout.splitlines() if "-frontend" in l), None)
    if first is None:
        die("swiftc -### printed no frontend job:\n" + proc.stdout)
    words = shlex.split(first)
    cmd, i = [], 0
    while i < len(words):
        w = words[i]
        if w in ("-primary-file", "-o"):
            i += 2
            continue
        if w == sources[0]:
            i += 1
            continue
        cmd.append(w)
        i += 1
    for s, o in zip(sources, outputs):
        cmd += ["-primary-file", s]
    for o in outputs:
        cmd += ["-o", o]
    return cmd


def dump_module(name, build_flags, sources, out_dir):
    """{source path: parsed AST} for one module."""
    os.makedirs(out_dir, exist_ok=True)
    for old in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, old))
    outputs = [os.path.join(out_dir, "%d.json" % i) for i in range(len(sources))]
    cmd = frontend_command(build_flags, sources, outputs)
    proc = run(cmd)
    if proc.returncode != 0:
        die("dumping the AST of %s failed:\n%s" % (name, proc.stderr[-6000:]))
    asts = {}
    for s, o in zip(sources, outputs):
        with open(o) as f:
            asts[s] = json.load(f)
    return asts


KEEP_WITH_VALUE = {
    "-module-name", "-package-name", "-swift-version", "-target", "-I", "-F", "-sdk",
    "-module-cache-path", "-Xcc", "-Xfrontend", "-enable-upcoming-feature",
    "-enable-experimental-feature", "-D", "-resource-dir", "-Isystem", "-Fsystem",
}
KEEP_ALONE = {"-parse-as-library", "-enable-testing", "-enable-library-evolution"}


def build_flags_from(args):
    flags, i = [], 1  # args[0] is swiftc
    while i < len(args):
        a = args[i]
        if a in KEEP_WITH_VALUE and i + 1 < len(args):
            flags += [a, args[i + 1]]
            i += 2
            continue
        if a in KEEP_ALONE or a.startswith("-D") or a.startswith("-strict-concurrency="):
            flags.append(a)
        i += 1
    return flags


CHECKED_ROOTS = ("Sources", "Tests")


def checked_roots(package_root):
    """The folders whose targets are checked: Sources/ (libraries, the example) and Tests/."""
    return tuple(os.path.join(os.path.realpath(package_root), r) + os.sep for r in CHECKED_ROOTS)


def read_build_plan(scratch, package_root):
    """[(target, build flags, sources)] for targets under Sources/ and Tests/, from SwiftPM's
    debug.yaml."""
    path = os.path.join(scratch, "debug.yaml")
    if not os.path.exists(path):
        die("%s is missing: did swift build run?" % path)
    commands, current = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r'  "(C\.[^"]+\.module)":\s*$', line)
            if m:
                current = commands.setdefault(m.group(1), {})
                continue
            m = re.match(r"    (\w+): (.*)$", line)
            if m and current is not None and m.group(2)[:1] in "[\"":
                try:
                    current[m.group(1)] = json.loads(m.group(2))
                except ValueError:
                    pass
            elif not line.startswith("    "):
                current = None
    roots = checked_roots(package_root)
    plan = []
    for cmd in commands.values():
        args = cmd.get("args") or []
        if "-module-name" not in args:
            continue
        name = args[args.index("-module-name") + 1]
        sources = [s for s in cmd.get("inputs", []) if s.endswith(".swift")]
        # A target of Sources/ or Tests/ (derived sources such as resource accessors come along).
        if not any(os.path.realpath(s).startswith(roots) for s in sources):
            continue
        plan.append((name, build_flags_from(args), sources))
    if not plan:
        die("no target under Sources/ or Tests/ in %s" % path)
    return sorted(plan)
