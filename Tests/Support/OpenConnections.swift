import Foundation

/// The TCP connections this machine holds open to a port, read from `/proc/net/tcp` and
/// `/proc/net/tcp6` (Linux): those whose remote end is `port` and that a descriptor still
/// holds (established, or closed by the peer and not yet by us). A connection closed by us
/// (in `FIN_WAIT` or `TIME_WAIT`) holds no descriptor and is not counted. `nil` where there is
/// no `/proc`.
///
/// Unlike a count of the process's descriptors, it does not move with what tests running
/// beside it open.
public enum OpenConnections {
  /// The connections to `port` still held.
  public static func count(toPort port: UInt16) -> Int? {
    let tables = ["/proc/net/tcp", "/proc/net/tcp6"].compactMap(wholeFile)
    guard !tables.isEmpty else { return nil }
    let held: Set<Substring> = ["01", "08"]  // ESTABLISHED, CLOSE_WAIT
    let remote = String(format: ":%04X", port)
    return tables.joined(separator: "\n").split(separator: "\n").count { line in
      let fields = line.split(separator: " ")
      return fields.count > 3 && fields[2].hasSuffix(remote) && held.contains(fields[3])
    }
  }

  /// The whole of a `/proc` file, read to its end: such a file has no size, and
  /// `String(contentsOfFile:)` then reads one page of it (4 KiB, some 27 connections), so a
  /// busy machine's table is cut off and connections past the page go uncounted.
  private static func wholeFile(_ path: String) -> String? {
    guard let file = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? file.close() }
    return (try? file.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
  }
}
