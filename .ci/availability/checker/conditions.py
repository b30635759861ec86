"""`#if` clauses from the source text: which lines compile for Apple platforms and under which compiler."""

from .symbols import *  # noqa: F401,F403 (each part builds on the one before)

# ---------------------------------------------------------------------------------------------
# `#if` clauses from the source text


def mask_source(src):
    """`src` with comments and string literals blanked out (newlines kept)."""
    out = list(src)
    n = len(src)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    def skip_comment(i):
        if src.startswith("//", i):
            j = src.find("\n", i)
            return n if j < 0 else j
        depth, j = 0, i
        while j < n:
            if src.startswith("/*", j):
                depth, j = depth + 1, j + 2
            elif src.startswith("*/", j):
                depth, j = depth - 1, j + 2
                if depth == 0:
                    return j
            else:
                j += 1
        return n

    def skip_string(i):
        """i at the opening `#…"`; returns the index after the closing delimiter."""
        hashes = 0
        while src[i + hashes] == "#":
            hashes += 1
        j = i + hashes
        triple = src.startswith('"""', j)
        quote = '"""' if triple else '"'
        j += len(quote)
        close = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        while j < n:
            if src.startswith(escape, j):
                k = j + len(escape)
                if k < n and src[k] == "(":
                    j = skip_code(k + 1, ")")
                else:
                    j = k + 1
            elif src.startswith(close, j):
                return j + len(close)
            elif not triple and src[j] == "\n":
                return j  # unterminated single-line string: stop at the line's end
            else:
                j += 1
        return n

    def skip_code(i, terminator):
        """Skips code up to and including the `terminator` that closes it (interpolations)."""
        depth = 0
        while i < n:
            c = src[i]
            if src.startswith("//", i) or src.startswith("/*", i):
                i = skip_comment(i)
            elif c == '"' or (c == "#" and re.match(r'#+"', src[i:i + 8])):
                i = skip_string(i)
            elif c == "(":
                depth, i = depth + 1, i + 1
            elif c == ")":
                if depth == 0 and terminator == ")":
                    return i + 1
                depth, i = depth - 1, i + 1
            else:
                i += 1
        return n

    i = 0
    while i < n:
        c = src[i]
        if src.startswith("//", i) or src.startswith("/*", i):
            j = skip_comment(i)
            blank(i, j)
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', src[i:i + 8])):
            j = skip_string(i)
            blank(i, j)
            i = j
        else:
            i += 1
    return "".join(out)


def parse_condition(text):
    """A `#if` condition → a small tree: ('and'|'or', a, b), ('not', a), ('call', name, arg),
    ('id', name). Unparseable input becomes ('id', text) (unknown)."""
    tokens = re.findall(r"&&|\|\||!|\(|\)|[A-Za-z_][A-Za-z0-9_]*|[^\s()&|!]+", text)
    pos = [0]

    def peek():
        return tokens[pos[0]] if pos[0] < len(tokens) else None

    def take():
        pos[0] += 1
        return tokens[pos[0] - 1]

    def parse_or():
        left = parse_and()
        while peek() == "||":
            take()
            left = ("or", left, parse_and())
        return left

    def parse_and():
        left = parse_unary()
        while peek() == "&&":
            take()
            left = ("and", left, parse_unary())
        return left

    def parse_unary():
        if peek() == "!":
            take()
            return ("not", parse_unary())
        if peek() == "(":
            take()
            inner = parse_or()
            if peek() == ")":
                take()
            return inner
        name = take() if peek() is not None else ""
        if peek() == "(":
            take()
            depth, arg = 0, []
            while peek() is not None and not (peek() == ")" and depth == 0):
                t = take()
                depth += t == "("
                depth -= t == ")"
                arg.append(t)
            if peek() == ")":
                take()
            return ("call", name, "".join(arg))
        return ("id", name)

    try:
        return parse_or()
    except IndexError:
        return ("id", text)


def compiler_floor(cond, truth):
    """The least compiler version `cond == truth` guarantees, or None."""
    kind = cond[0]
    if kind == "call" and cond[1] == "compiler":
        m = re.match(r"(>=|<)(.+)", cond[2])
        if not m:
            return None
        op, version = m.group(1), vtuple(m.group(2))[:2]
        return version if (op == ">=") == truth else None
    if kind == "not":
        return compiler_floor(cond[1], not truth)
    if kind in ("and", "or"):
        a, b = compiler_floor(cond[1], truth), compiler_floor(cond[2], truth)
        if (kind == "and") == truth:  # both hold: the stronger floor
            return max([x for x in (a, b) if x is not None], default=None)
        return None if a is None or b is None else min(a, b)  # either may hold
    return None


def platform_values(cond, platform):
    """The truth values `cond` can take when compiling for `platform`: "apple" (any Apple
    platform) or "linux" (this machine)."""
    kind = cond[0]
    if kind == "call":
        name, arg = cond[1], cond[2].strip()
        if name == "canImport":
            module = arg.split(",")[0].strip()
            if module in APPLE_ONLY_MODULES:
                return {platform == "apple"}
            if module in NON_APPLE_MODULES:
                return {platform == "linux" and module in LINUX_MODULES}
        if name == "os":
            if platform == "linux":
                return {arg == "Linux"}
            return {True, False} if arg in APPLE_OS_NAMES else {False}
        return {True, False}
    if kind == "id":
        if cond[1] in ("true", "false"):
            return {cond[1] == "true"}
        return {True, False}
    if kind == "not":
        return {not v for v in platform_values(cond[1], platform)}
    a, b = platform_values(cond[1], platform), platform_values(cond[2], platform)
    if kind == "and":
        return {x and y for x in a for y in b}
    return {x or y for x in a for y in b}


PLATFORMS = ("apple", "linux")


def line_regions(src):
    """Per line (1-based): the least compiler version guaranteed there (or None), and
    {"apple": bool, "linux": bool}: whether the line can be compiled for that platform."""
    masked = mask_source(src)
    lines = masked.split("\n")
    everywhere = {p: True for p in PLATFORMS}
    floors, possible_at = [None, None], [everywhere, everywhere]  # index 0 unused
    stack = []  # frames: {outer_floor, outer_possible, previous: [conds], floor, possible}

    def clause(frame, cond):
        floor, possible = frame["outer_floor"], dict(frame["outer_possible"])
        for prev in frame["previous"]:
            f = compiler_floor(prev, False)
            if f is not None and (floor is None or f > floor):
                floor = f
            for p in PLATFORMS:
                possible[p] = possible[p] and False in platform_values(prev, p)
        if cond is not None:
            f = compiler_floor(cond, True)
            if f is not None and (floor is None or f > floor):
                floor = f
            for p in PLATFORMS:
                possible[p] = possible[p] and True in platform_values(cond, p)
            frame["previous"].append(cond)
        frame["floor"], frame["possible"] = floor, possible

    floor, possible = None, everywhere
    for number, line in enumerate(lines, start=1):
        m = re.match(r"\s*#(if|elseif|else|endif)\b(.*)", line)
        if m:
            word, rest = m.group(1), m.group(2).strip()
            if word == "if":
                frame = {"outer_floor": floor, "outer_possible": possible, "previous": []}
                stack.append(frame)
                clause(frame, parse_condition(rest))
            elif stack and word == "elseif":
                clause(stack[-1], parse_condition(rest))
            elif stack and word == "else":
                clause(stack[-1], None)
            elif stack and word == "endif":
                frame = stack.pop()
                floor, possible = frame["outer_floor"], frame["outer_possible"]
            if stack and word != "endif":
                floor, possible = stack[-1]["floor"], stack[-1]["possible"]
        if number >= len(floors):
            floors.append(floor)
            possible_at.append(possible)
        else:
            floors[number], possible_at[number] = floor, possible
    return floors, possible_at
