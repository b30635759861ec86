import Courier

extension Result where Failure == HTTPError {
  /// The outcome of a typed-throwing async operation.
  public init(_ operation: () async throws(HTTPError) -> Success) async {
    do {
      self = .success(try await operation())
    } catch {
      self = .failure(error)
    }
  }
}
