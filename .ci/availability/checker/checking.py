"""The check itself: judging each reference, the package, loose files and the self-test."""

from .frontend import *  # noqa: F401,F403 (each part builds on the one before)

# ---------------------------------------------------------------------------------------------
# The check


def line_starts(data):
    starts = [0]
    for i, b in enumerate(data):
        if b == 10:
            starts.append(i + 1)
    return starts


def describe(platforms):
    return " / ".join("%s %s" % (p, vstr(platforms[p])) for p in APPLE if p in platforms)


def judge(need, ctx, floor, targets, oldest):
    """(platforms the context does not cover, Swift release of the declaration, whether that
    needs `#if compiler`, whether the `#if compiler` floor here suffices)."""
    short = [p for p in APPLE if p in need and max(targets[p], ctx.get(p, (0, 0, 0))) < need[p]]
    release = required_swift(need)
    needs_compiler = release is None or release > oldest
    compiler_ok = not needs_compiler or (
        release is not None and floor is not None and floor >= release)
    return short, release, needs_compiler, compiler_ok


def check_files(asts, index, targets, oldest, root):
    """Findings [(path, declaration, message)] in source order, the number of references to
    declarations with Apple availability looked at, and the number of Apple-only lines (in
    `#if` branches Linux does not compile) that could not be looked at."""
    per_file = {}
    all_types = set()
    for path, ast in asts.items():
        refs = collect_references(ast)
        per_file[path] = refs
        all_types.update(what[1] for _, what, _ in refs if what[0] == "type")
    type_paths = demangle_types(all_types)

    findings = {}
    counted = unseen = 0
    for path, refs in per_file.items():
        with open(path, "rb") as f:
            data = f.read()
        starts = line_starts(data)
        text = data.decode("utf-8", errors="replace")
        floors, possible_at = line_regions(text)
        rel = os.path.relpath(path, root)
        # Apple-only lines (Darwin branches) that Linux does not type-check: not seen here.
        masked_lines = mask_source(text).split("\n")
        unseen += sum(1 for n, line in enumerate(masked_lines, start=1)
                      if line.strip() and not line.lstrip().startswith("#")
                      and possible_at[n]["apple"] and not possible_at[n]["linux"])
        for offset, what, ctx in refs:
            if what[0] == "usr":
                usrs = [what[1]]
            else:
                usrs = [u for g, p in type_paths.get(what[1], [])
                        for u in index["types"].get(g + "|" + p, [])]
            for usr in usrs:
                need = index["avail"].get(usr)
                if not need:
                    continue
                counted += 1
                line = bisect.bisect_right(starts, offset)
                col = offset - starts[line - 1] + 1
                if line < len(possible_at) and not possible_at[line]["apple"]:
                    continue  # not compiled for Apple platforms
                floor = floors[line] if line < len(floors) else None
                short, release, needs_compiler, compiler_ok = judge(need, ctx, floor, targets, oldest)
                if not short and compiler_ok:
                    continue
                alternative = index["overloads"].get(usr)
                if alternative is not None:
                    alt_short, _, _, alt_ok = judge(alternative, ctx, floor, targets, oldest)
                    if not alt_short and alt_ok:
                        continue  # an older overload of the same name serves the Apple builds
                wanted = {p: max(targets[p], need.get(p, (0, 0, 0))) for p in APPLE}
                condition = "if #available(%s, *)" % ", ".join(
                    "%s %s" % (p, vstr(wanted[p])) for p in APPLE)
                if release is None:
                    guard = ("#if compiler(>=?) (a Swift release newer than this script's "
                             "SWIFT_STDLIB table: extend it) around " + condition)
                elif needs_compiler:
                    guard = "#if compiler(>=%d.%d) around %s" % (release + (condition,))
                else:
                    guard = condition + " (Swift %d.%d ships it: no #if compiler needed)" % release
                why = []
                if not compiler_ok:
                    why.append("not inside #if compiler(>=%s)" % (
                        "%d.%d" % release if release else "?"))
                if short:
                    why.append("here it may run on " + describe(
                        {p: max(targets[p], ctx.get(p, (0, 0, 0))) for p in short}))
                message = "%s:%d:%d: %s needs %s (deployment target %s); guard it with %s [%s]" % (
                    rel, line, col, index["names"].get(usr, usr), describe(need),
                    describe(targets), guard, "; ".join(why))
                findings[(rel, line, col, usr)] = (rel, index["names"].get(usr, usr), message)
    return [findings[k] for k in sorted(findings)], counted, unseen


def parse_targets(text, base):
    targets = dict(base)
    for item in filter(None, (x.strip() for x in text.split(","))):
        name, _, version = item.partition("=")
        match = next((p for p in APPLE if p.lower() == name.strip().lower()), None)
        if match is None or not version:
            die("--targets: cannot read %r (want e.g. macOS=13.0,iOS=16.0)" % item)
        targets[match] = vtuple(version)
    return targets


def package_facts(root, scratch):
    proc = run(["swift", "package", "--package-path", root, "--scratch-path", scratch,
                "dump-package"])
    if proc.returncode != 0:
        die("swift package dump-package failed:\n" + proc.stderr)
    manifest = json.loads(proc.stdout)
    names = {p.lower(): p for p in APPLE}
    targets = {p: vtuple(vstr(v)) for p, v in SPM_DEFAULT_TARGETS.items()}
    for entry in manifest.get("platforms") or []:
        name = names.get(entry.get("platformName", "").lower())
        if name:
            targets[name] = vtuple(entry["version"])
    tools = vtuple(manifest.get("toolsVersion", {}).get("_version", "6.0"))[:2]
    # dump-package reads the manifest this toolchain picks (Package@swift-6.1.swift, which adds
    # the traits); the oldest supported toolchain is the one Package.swift itself names.
    with open(os.path.join(root, "Package.swift"), encoding="utf-8") as file:
        named = re.match(r"// swift-tools-version:\s*(\S+)", file.readline())
    if named:
        tools = min(tools, vtuple(named.group(1))[:2])
    return targets, tools


def check_package(root, targets_override):
    started = time.time()
    scratch = os.path.join(root, ".build-avail")
    targets, oldest = package_facts(root, scratch)
    if targets_override:
        targets = parse_targets(targets_override, targets)
    index, _ = load_index(scratch)
    proc = run(["swift", "build", "--build-tests", "--package-path", root, "--scratch-path", scratch])
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        die("swift build --build-tests --scratch-path .build-avail failed (see above)")
    plan = read_build_plan(scratch, root)
    asts = {}
    roots = checked_roots(root)
    for name, flags, sources in plan:
        dumped = dump_module(name, flags, sources, os.path.join(scratch, "availability", "ast", name))
        asts.update((s, a) for s, a in dumped.items() if os.path.realpath(s).startswith(roots))
    findings, counted, unseen = check_files(asts, index, targets, oldest, root)
    for _, _, message in findings:
        print(message)
    print("availability: %d finding(s); %d reference(s) to declarations with Apple availability "
          "in %s; deployment target %s; oldest toolchain Swift %d.%d; %d Apple-only line(s) in "
          "#if branches Linux does not compile were not checked; %.1fs" % (
              len(findings), counted, ", ".join(n for n, _, _ in plan), describe(targets),
              oldest[0], oldest[1], unseen, time.time() - started))
    return 1 if findings else 0


def check_loose_files(files, targets_text, oldest, scratch, quiet=False):
    """Fixture mode: `files` as one module named Fixture. Returns the findings."""
    targets = parse_targets(targets_text or "", {p: vtuple(vstr(v)) for p, v in SPM_DEFAULT_TARGETS.items()})
    index, _ = load_index(scratch)
    files = [os.path.abspath(f) for f in files]
    flags = ["-module-name", "Fixture", "-parse-as-library", "-swift-version", "6"]
    out_dir = os.path.join(scratch, "availability", "ast", "Fixture")
    asts = dump_module("Fixture", flags, files, out_dir)
    findings, _, _ = check_files(asts, index, targets, oldest, os.getcwd())
    findings = [message for _, _, message in findings]
    if not quiet:
        for line in findings:
            print(line)
        print("availability: %d finding(s); deployment target %s" % (len(findings), describe(targets)))
    return findings


def self_test(root):
    """Each fixture says what it expects in its header comments:
         // expect: pass | fail
         // expect-message: text every finding… (each line: one finding must contain it)
         // targets: macOS=13.0,iOS=16.0,…   (default: SwiftPM's minimums)"""
    scratch = os.path.join(root, ".build-avail")
    fixtures_dir = os.path.join(HERE, "fixtures")
    fixtures = sorted(f for f in os.listdir(fixtures_dir) if f.endswith(".swift"))
    if not fixtures:
        die("no fixtures in " + fixtures_dir)
    failures = 0
    for name in fixtures:
        path = os.path.join(fixtures_dir, name)
        with open(path) as f:
            header = f.read()
        expect = re.search(r"^// expect: (pass|fail)\s*$", header, re.M)
        if not expect:
            die("%s: no `// expect: pass|fail` line" % name)
        targets = re.search(r"^// targets: (\S+)\s*$", header, re.M)
        oldest = re.search(r"^// oldest-swift: (\S+)\s*$", header, re.M)
        messages = re.findall(r"^// expect-message: (.+?)\s*$", header, re.M)
        count = re.search(r"^// expect-findings: (\d+)\s*$", header, re.M)
        findings = check_loose_files(
            [path], targets.group(1) if targets else "",
            vtuple(oldest.group(1))[:2] if oldest else (6, 0), scratch, quiet=True)
        problems = []
        if (expect.group(1) == "fail") != bool(findings):
            problems.append("expected to %s, got %d finding(s)" % (expect.group(1), len(findings)))
        for m in messages:
            if not any(m in line for line in findings):
                problems.append("no finding contains %r" % m)
        if count and int(count.group(1)) != len(findings):
            problems.append("expected %s finding(s), got %d" % (count.group(1), len(findings)))
        if problems:
            failures += 1
            print("self-test FAILED: %s: %s" % (name, "; ".join(problems)))
            for line in findings:
                print("    " + line)
        else:
            print("self-test ok: %s (%s, %d finding(s))" % (name, expect.group(1), len(findings)))
    print("self-test: %d of %d fixture(s) as expected" % (len(fixtures) - failures, len(fixtures)))
    return 1 if failures else 0
