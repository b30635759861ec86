import CCourierCurl
import Foundation

/// Whether a cookie's `Domain` is a public suffix, which no cookie may be set for (it would
/// go to every site under it: `co.uk`, `github.io`).
enum PublicSuffix {
  /// The Public Suffix List's answer, from the system's libpsl where it loads (Linux); where
  /// none does (Apple platforms), the rule that a name of one label (`com`, `localhost`) is
  /// a public suffix and a longer one is not.
  static func contains(_ domain: String) -> Bool {
    switch courier_psl_is_public_suffix(domain) {
    case 1: return true
    case 0: return false
    default: return !domain.contains(".")
    }
  }

  /// Whether libpsl answers (otherwise the one-label rule does).
  static var usesLibpsl: Bool {
    courier_psl_is_public_suffix("com") >= 0
  }
}
