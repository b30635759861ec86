#!/usr/bin/env python3
"""Where a client's CPU time goes, by stage: reads `perf script` output (demangled) on stdin
and attributes each sample to the first stage that matches, walking its stack from the leaf
up; prints a markdown table of shares. profile.sh runs it.

A sample in the kernel is attributed by its system call (a thread hand-off is a futex or an
eventfd wake; socket I/O is send/recv/epoll). A sample in user code goes to the most specific
stage on its stack: malloc called while building a request counts as request building.
"""
import collections
import re
import sys

# (stage, pattern on a frame's symbol), in the order they are tried for each frame.
STAGES = [
    ("decoding (JSONDecoder)", r"JSONDecoder|JSONScanner|JSONMap|Decodable\.init|MoviePage|Movie\.init"),
    ("request building (URL, query, headers)", r"RequestBuilder|URLBuilder|QueryEncoding|PercentEncoding|HeaderValidation"),
    ("response head (status line, header fields)", r"CurlTransfer\.headerLine|CurlTransfer\.headEnded|HeaderScanner|HTTPHeaders"),
    ("body collection (write callback, copies)", r"curlWrite|ChunkBuffer|ResponseBody|CurlTransfer\.received"),
    ("coalescing (shared call: task, continuation, key)", r"SharedCall|RequestCoalescer"),
    ("deadlines and timer", r"DeadlineTimer|Deadlines|TransportClock"),
    ("per-request core (machine, call, lock)", r"TransportCall|RequestMachine"),
    ("CurlTransport (setup, driver, callbacks)", r"CurlTransfer|CurlDriver|CurlTransport|CurlHandles|CurlUpload|courier_curl"),
    ("client pipeline (perform, limits, exchange)", r"HTTPClient|Exchange|RequestLimiter|OutgoingRequest|EventReporter|Credentials"),
    ("AsyncHTTPClient and NIO", r"AsyncHTTPClient|NIOCore|NIOPosix|NIOHTTP1|NIOSSL|NIOConcurrencyHelpers"),
    ("URLRequest and URLSession (FoundationNetworking)", r"FoundationNetworking|URLSession|_MultiHandle|_EasyHandle|_HTTPURLProtocol"),
    ("libcurl", r"\(.*libcurl[^)]*\)$"),
    ("task and continuation runtime", r"swift_task|swift_job|swift_continuation|swift_asyncLet|CheckedContinuation|withTaskCancellationHandler|swift::AsyncTask|TaskGroup|Task\.immediate|swift_task_immediate"),
    ("benchmark driver (Load, GetCase)", r"SuiteCases|GetCase|Load\.run|DecodeCase"),
]
KERNEL = [
    ("thread hand-off (futex, eventfd, scheduler)", r"futex|eventfd|schedule|try_to_wake_up|finish_task_switch"),
    ("socket I/O (send, recv, epoll, poll)", r"sendto|recvfrom|tcp_|epoll|poll|sock_|__sys_send|__sys_recv|inet_|ip_"),
]
COMPILED = [(stage, re.compile(pattern)) for stage, pattern in STAGES]
COMPILED_KERNEL = [(stage, re.compile(pattern)) for stage, pattern in KERNEL]


def attribute(frames):
    """The stage of one sample, from its frames (leaf first)."""
    if frames and "[kernel.kallsyms]" in frames[0]:
        kernel = [f for f in frames if "[kernel.kallsyms]" in f]
        for stage, pattern in COMPILED_KERNEL:
            if any(pattern.search(frame) for frame in kernel):
                return stage
        return "kernel, other (page faults, timers)"
    for frame in frames:
        for stage, pattern in COMPILED:
            if pattern.search(frame):
                return stage
    leaf = frames[0] if frames else ""
    if re.search(r"malloc|free|_int_|memmove|memcpy|swift_retain|swift_release|swift_alloc|swift_dealloc", leaf):
        return "memory (malloc, free, retain, release) elsewhere"
    return "other"


def main():
    counts = collections.Counter()
    frames = []
    total = 0
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line.strip():
            if frames:
                counts[attribute(frames)] += 1
                total += 1
            frames = []
        elif line.startswith(("\t", " ")):
            frames.append(line.strip())
    if frames:
        counts[attribute(frames)] += 1
        total += 1
    print("| stage | share of CPU samples |")
    print("| --- | ---: |")
    for stage, count in counts.most_common():
        print("| %s | %.1f %% |" % (stage, 100.0 * count / total))
    print("| (samples) | %d |" % total)


main()
