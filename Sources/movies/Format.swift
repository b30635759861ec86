/// Text formatting for the terminal, the same in every locale (so output is deterministic).
enum Format {
  /// A 0–10 rating with one decimal: `7.3`.
  static func rating(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }

  /// Minutes as hours and minutes: `2h 4m`, `48m`.
  static func runtime(_ minutes: Int) -> String {
    minutes < 60 ? "\(minutes)m" : "\(minutes / 60)h \(minutes % 60)m"
  }

  /// A duration in milliseconds, to a tenth below 10 ms: `100 ms`, `0.4 ms`.
  static func milliseconds(_ duration: Duration) -> String {
    let micros =
      duration.components.seconds * 1_000_000
      + duration.components.attoseconds / 1_000_000_000_000
    guard micros < 10_000 else { return "\((micros + 500) / 1000) ms" }
    let tenths = (micros + 50) / 100
    return "\(tenths / 10).\(tenths % 10) ms"
  }

  /// A duration in seconds, to a hundredth: `0.52 s`.
  static func seconds(_ duration: Duration) -> String {
    let hundredths = Int((seconds(of: duration) * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
  }

  /// How many times faster `fast` was than `slow`, to a tenth: `6.5×`.
  static func speedUp(from slow: Duration, to fast: Duration) -> String {
    guard fast > .zero else { return "∞×" }
    let tenths = Int((seconds(of: slow) / seconds(of: fast) * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)×"
  }

  /// `text` broken at spaces into lines of at most `width` characters (longer words stay
  /// whole).
  static func wrap(_ text: String, width: Int) -> String {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      if !line.isEmpty, line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += line.isEmpty ? String(word) : " " + word
    }
    if !line.isEmpty { lines.append(line) }
    return lines.joined(separator: "\n")
  }

  /// `duration` in seconds, as a `Double`.
  private static func seconds(of duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
}
