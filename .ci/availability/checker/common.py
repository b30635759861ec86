"""Constants, errors and version arithmetic shared by every part of the check."""

import argparse
import bisect
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

APPLE = ("macOS", "iOS", "tvOS", "watchOS", "visionOS")
MODULES = ("Swift", "_Concurrency", "Synchronization", "Dispatch")
INDEX_FORMAT = 5  # bump when the cached index's shape changes

# SwiftPM's minimum deployment targets for tools-version 6.0, for platforms Package.swift omits.
SPM_DEFAULT_TARGETS = {
    "macOS": (10, 13), "iOS": (12, 0), "tvOS": (12, 0), "watchOS": (4, 0), "visionOS": (1, 0),
}

# Swift release → the OS releases whose stdlib it is: the `SwiftStdlib X.Y` macros in
# swiftlang/swift utils/availability-macros.def. visionOS starts at 1.0 (5.9's stdlib).
SWIFT_STDLIB = [
    ((5, 0), {"macOS": (10, 14, 4), "iOS": (12, 2), "watchOS": (5, 2), "tvOS": (12, 2), "visionOS": (1, 0)}),
    ((5, 1), {"macOS": (10, 15), "iOS": (13, 0), "watchOS": (6, 0), "tvOS": (13, 0), "visionOS": (1, 0)}),
    ((5, 2), {"macOS": (10, 15, 4), "iOS": (13, 4), "watchOS": (6, 2), "tvOS": (13, 4), "visionOS": (1, 0)}),
    ((5, 3), {"macOS": (11, 0), "iOS": (14, 0), "watchOS": (7, 0), "tvOS": (14, 0), "visionOS": (1, 0)}),
    ((5, 4), {"macOS": (11, 3), "iOS": (14, 5), "watchOS": (7, 4), "tvOS": (14, 5), "visionOS": (1, 0)}),
    ((5, 5), {"macOS": (12, 0), "iOS": (15, 0), "watchOS": (8, 0), "tvOS": (15, 0), "visionOS": (1, 0)}),
    ((5, 6), {"macOS": (12, 3), "iOS": (15, 4), "watchOS": (8, 5), "tvOS": (15, 4), "visionOS": (1, 0)}),
    ((5, 7), {"macOS": (13, 0), "iOS": (16, 0), "watchOS": (9, 0), "tvOS": (16, 0), "visionOS": (1, 0)}),
    ((5, 8), {"macOS": (13, 3), "iOS": (16, 4), "watchOS": (9, 4), "tvOS": (16, 4), "visionOS": (1, 0)}),
    ((5, 9), {"macOS": (14, 0), "iOS": (17, 0), "watchOS": (10, 0), "tvOS": (17, 0), "visionOS": (1, 0)}),
    ((5, 10), {"macOS": (14, 4), "iOS": (17, 4), "watchOS": (10, 4), "tvOS": (17, 4), "visionOS": (1, 1)}),
    ((6, 0), {"macOS": (15, 0), "iOS": (18, 0), "watchOS": (11, 0), "tvOS": (18, 0), "visionOS": (2, 0)}),
    ((6, 1), {"macOS": (15, 4), "iOS": (18, 4), "watchOS": (11, 4), "tvOS": (18, 4), "visionOS": (2, 4)}),
    ((6, 2), {"macOS": (26, 0), "iOS": (26, 0), "watchOS": (26, 0), "tvOS": (26, 0), "visionOS": (26, 0)}),
    ((6, 3), {"macOS": (26, 4), "iOS": (26, 4), "watchOS": (26, 4), "tvOS": (26, 4), "visionOS": (26, 4)}),
]

# Modules whose presence (canImport) or OS (os()) means "not an Apple platform", and the reverse.
NON_APPLE_MODULES = {
    "Glibc", "Musl", "Bionic", "Android", "WASILibc", "WinSDK", "ucrt", "CRT",
    "FoundationNetworking", "FoundationXML",
}
APPLE_ONLY_MODULES = {"Darwin", "ObjectiveC", "Security", "CoreFoundation"}
LINUX_MODULES = {"Glibc", "FoundationNetworking", "FoundationXML"}  # this toolchain's (glibc)
APPLE_OS_NAMES = {"macOS", "iOS", "tvOS", "watchOS", "visionOS", "xrOS"}

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .ci/availability


class CheckError(Exception):
    """A failure of the check itself (not a finding)."""


def die(message):
    raise CheckError(message)



# ---------------------------------------------------------------------------------------------
# Versions


def vtuple(text):
    """'26' / '15.4' / '10.14.4' → a comparable 3-tuple."""
    parts = [int(p) for p in re.findall(r"\d+", str(text))[:3]]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


def vjson(v):
    return (v.get("major", 0), v.get("minor", 0), v.get("patch", 0))


def vstr(v):
    v = tuple(v)
    return "%d.%d" % v[:2] if len(v) < 3 or v[2] == 0 else "%d.%d.%d" % v


def swift_release_for(platform, version):
    """The first Swift release whose stdlib ships on `platform` ≥ `version`; None past the table."""
    for release, oses in SWIFT_STDLIB:
        if vtuple(vstr(oses[platform])) >= version:
            return release
    return None


def required_swift(need):
    """The Swift release a declaration needing `need` ({platform: version}) came with."""
    releases = [swift_release_for(p, v) for p, v in need.items()]
    if any(r is None for r in releases):
        return None  # newer than the table knows
    return max(releases) if releases else (0, 0)


def run(cmd, cwd=None, input_text=None):
    proc = subprocess.run(
        cmd, cwd=cwd, input=input_text, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc
