import Foundation

/// The process's memory figures from `/proc/self/status` (Linux), in bytes: what is resident
/// now (`VmRSS`) and the peak so far (`VmHWM`). `nil` where there is no `/proc`.
public enum ResidentMemory {
  /// Resident memory now.
  public static var current: Int? { field("VmRSS") }
  /// The highest resident memory of the process so far (since ``resetPeak()``).
  public static var peak: Int? { field("VmHWM") }

  /// Starts the peak again from the current resident memory (Linux: `5` into
  /// `/proc/self/clear_refs`).
  public static func resetPeak() {
    try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
  }

  private static func field(_ name: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return nil
    }
    for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
      let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
      return kilobytes.map { $0 * 1024 }
    }
    return nil
  }
}
