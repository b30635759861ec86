import Foundation

/// Writing to standard error, for messages that are not the program's output.
enum Console {
  /// Writes `message` and a newline to standard error.
  static func error(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}
