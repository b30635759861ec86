import Foundation

/// A failure inside the loopback server: a socket call that failed, or a response
/// method used out of order.
struct LoopbackError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}
