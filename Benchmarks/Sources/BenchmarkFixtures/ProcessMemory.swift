import Foundation

/// The process's resident memory, read from `/proc/self/status`.
public enum ProcessMemory {
  /// Resident set size now, in KiB (`VmRSS`).
  public static var residentKiB: Int { field("VmRSS:") }

  /// The peak resident set size, in KiB (`VmHWM`), since the process started or since the
  /// last ``resetPeak()``.
  public static var peakKiB: Int { field("VmHWM:") }

  /// Resets the peak (`VmHWM`) to the current resident size by writing `5` to
  /// `/proc/self/clear_refs` (Linux 4.0+), so a peak can be read for one phase of the process.
  /// Returns whether it worked.
  @discardableResult
  public static func resetPeak() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? handle.close() }
    return (try? handle.write(contentsOf: Data("5".utf8))) != nil
  }

  private static func field(_ name: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) })
    else { return -1 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
  }
}
