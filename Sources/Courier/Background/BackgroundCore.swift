import Foundation

/// The transfers of every ``BackgroundSession`` with one identifier in this process: each
/// runs in a task of its own and posts its events to the identifier's hub.
///
/// One core per identifier for the whole process, kept in ``registry``: this is the one
/// process-wide table in Courier, and it mirrors the platform's rule it stands in for (a
/// background `URLSession` is one per identifier, and a session made again with it gets the
/// earlier one's tasks). A core is a few hundred bytes and lives as long as the process.
final class BackgroundCore: Sendable {
  /// Why a transfer failed, with what a download kept for resuming.
  struct Failure: Error {
    let error: HTTPError
    let resumeData: BackgroundResumeData?
  }

  /// A transfer's work, given where to report progress: the response it ended with.
  typealias Work =
    @Sendable (_ report: @escaping @Sendable (TransferProgress) -> Void)
    async throws(Failure) -> HTTPResponse

  private struct Running: Sendable {
    let transfer: BackgroundTransfer
    var task: Task<Void, Never>?
  }

  private static let registry = Locked<[String: BackgroundCore]>([:])

  /// The core of `identifier`, made on first use.
  static func named(_ identifier: String) -> BackgroundCore {
    registry.withLock { cores in
      if let core = cores[identifier] { return core }
      let core = BackgroundCore(identifier: identifier)
      cores[identifier] = core
      return core
    }
  }

  let identifier: String
  let hub = BackgroundEventHub()
  private let state = Locked<[Running]>([])
  /// On Apple platforms, the background `URLSession` of this identifier, made on first use
  /// (BackgroundCore+System+Platform.swift).
  let systemEngine = Locked<(any Sendable)?>(nil)

  private init(identifier: String) {
    self.identifier = identifier
  }

  /// The transfers not yet ended, oldest first.
  var running: [BackgroundTransfer] {
    state.withLock { $0.map(\.transfer) }
  }

  /// Runs `work` for `transfer` in a task of its own, posting its progress and its end.
  func run(_ transfer: BackgroundTransfer, _ work: @escaping Work) {
    let hub = hub
    hub.started()
    state.withLock { running in
      running.append(Running(transfer: transfer))
      let task = Task {
        let event: BackgroundEvent
        do throws(Failure) {
          let response = try await work { hub.post(.progress(transfer, $0)) }
          event = .finished(transfer, response)
        } catch {
          event = .failed(transfer, error.error, resumeData: error.resumeData)
        }
        self.ended(transfer.id)
        hub.post(event, last: true)
      }
      running[running.count - 1].task = task
    }
  }

  /// Cancels the transfer with `id`, if it is still running.
  func cancel(_ id: UUID) {
    state.withLock { $0.first { $0.transfer.id == id }?.task }?.cancel()
  }

  private func ended(_ id: UUID) {
    state.withLock { $0.removeAll { $0.transfer.id == id } }
  }
}
