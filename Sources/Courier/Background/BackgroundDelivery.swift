import Foundation

/// The system's word that it has delivered every event it kept for a background session
/// (`urlSessionDidFinishEvents(forBackgroundURLSession:)` on Apple platforms), and those who
/// wait for it (``BackgroundSession/handleEvents(completionHandler:)``). A word that comes
/// while nobody waits is kept for the next wait and used up by it: a later launch of the same
/// process waits for a delivery of its own. Platform-neutral, so that the rule is tested on
/// Linux, though only Apple's background sessions use it.
final class BackgroundDelivery: Sendable {
  private let state = Locked<(kept: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  /// Whether a word came that no wait has used up yet.
  var isKept: Bool { state.withLock { $0.kept } }

  /// The system has delivered its events: resumes those waiting, or keeps the word for the
  /// next wait.
  func delivered() {
    let waiters = state.withLock { state in
      defer { state = (state.waiters.isEmpty, []) }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once the system has delivered its events: at once when its word came before.
  func wait() async {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state in
        if state.kept {
          state.kept = false
          return true
        }
        state.waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }
}
