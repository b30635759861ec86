#if canImport(FoundationNetworking)
  import CourierTestSupport
  import Foundation
  import Glibc

  /// A child process started with `posix_spawn`, its standard output (and, if asked, input) a
  /// pipe, for the tests that run `openssl`, `gzip`, `nginx` or this test binary. Spawning
  /// does not block; waiting for a child and reading its pipe do, so they run on threads of
  /// their own (``shell(_:input:)``, `onOwnThread`).
  ///
  /// Not Foundation's `Process`: its `run()` on Linux crashed this suite now and then
  /// (Swift 6.3.1; a read past a buffer while it lists `/proc/self/fd`,
  /// swift-corelibs-foundation #5472), and its `waitUntilExit()` was seen never to return.
  struct ChildProcess: Sendable {
    struct Failure: Error, CustomStringConvertible {
      let description: String
    }

    let pid: pid_t
    /// The read end of the child's standard output.
    let output: Int32
    /// The write end of the child's standard input, when it has one of ours; whoever feeds
    /// it closes it.
    let input: Int32?

    /// Starts `arguments` (the first found on `PATH`), its standard error going nowhere.
    static func spawn(_ arguments: [String], input wantsInput: Bool = false) throws -> ChildProcess
    {
      var output: [Int32] = [0, 0]
      var input: [Int32] = [-1, -1]
      guard pipe(&output) == 0 else { throw Failure(description: "pipe: \(errno)") }
      if wantsInput, pipe(&input) != 0 { throw Failure(description: "pipe: \(errno)") }
      // Not inherited by other children (the child's own copies are made by dup2).
      for descriptor in output + input where descriptor >= 0 {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
      }
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_adddup2(&actions, output[1], 1)
      if wantsInput { posix_spawn_file_actions_adddup2(&actions, input[0], 0) }
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
      var argv = arguments.map { strdup($0) } + [nil]
      defer { for argument in argv { free(argument) } }
      var pid = pid_t()
      let status = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
      close(output[1])
      if wantsInput { close(input[0]) }
      guard status == 0 else {
        close(output[0])
        if wantsInput { close(input[1]) }
        throw Failure(description: "posix_spawn \(arguments[0]): \(status)")
      }
      return ChildProcess(pid: pid, output: output[0], input: wantsInput ? input[1] : nil)
    }

    /// Kills the child, and reaps it on a thread of its own (its exit is not waited for).
    func kill() {
      _ = Glibc.kill(pid, SIGKILL)
      Thread.detachNewThread { reap() }
    }

    /// Waits for the child to exit (it has, or is about to) and closes its output.
    func reap() {
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
      close(output)
    }

    /// What `command` prints (`sh -c`), once it has printed everything and exited; `input`,
    /// if given, is its standard input. Waited for on threads of their own, never on the
    /// cooperative pool.
    static func shell(_ command: String, input: Data? = nil) async throws -> Data {
      try await onOwnThread {
        let process = try spawn(["/bin/sh", "-c", command], input: input != nil)
        defer { process.reap() }
        if let input, let feed = process.input {
          // Fed from another thread, so that a command that writes as it reads cannot block;
          // joined (on this thread, not the pool's) before the child is reaped.
          let fed = DispatchSemaphore(value: 0)
          Thread {
            write(input, to: feed)
            close(feed)
            fed.signal()
          }.start()
          defer { fed.wait() }
          return readAll(process.output)
        }
        return readAll(process.output)
      }
    }

    // POSIX reads and writes that go on after a signal (EINTR: a child exiting), where
    // FileHandle's non-throwing calls trap. They block: call them on a thread of your own.

    /// Everything `descriptor` gives until its end.
    static func readAll(_ descriptor: Int32) -> Data {
      var all = Data()
      while true {
        let chunk = read(descriptor)
        if chunk.isEmpty { return all }
        all.append(chunk)
      }
    }

    /// The next bytes of `descriptor`; empty at its end or on an error.
    static func read(_ descriptor: Int32) -> Data {
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        if count >= 0 { return Data(buffer[..<count]) }
        if errno != EINTR { return Data() }
      }
    }

    /// Writes all of `data` to `descriptor`, or as much as the reader takes.
    static func write(_ data: Data, to descriptor: Int32) {
      data.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
          let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
          if count > 0 {
            offset += count
          } else if errno != EINTR {
            return
          }
        }
      }
    }
  }
#endif
