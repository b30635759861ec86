import Courier

extension HTTPError {
  /// Every form in which code prints an error: its description, its debug description, its
  /// localized description, `dump(_:)`, and its response's description. A credential test
  /// scans them all.
  public var printedForms: [String] {
    var dumped = ""
    dump(self, to: &dumped)
    return [
      "\(self)", String(reflecting: self), localizedDescription, dumped,
      response.map { "\($0)" } ?? "",
    ]
  }
}
