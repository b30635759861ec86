import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Supplies the bearer token for ``BearerAuthentication``.
///
/// ```swift
/// actor Session: CredentialProvider {
///   private var accessToken = "…"
///   func token() async throws(HTTPError) -> String { accessToken }
///   func refresh() async throws(HTTPError) -> String {
///     accessToken = try await authClient.send(RefreshToken(refreshToken)).accessToken
///     return accessToken
///   }
/// }
/// ```
public protocol CredentialProvider: Sendable {
  /// The token to send now.
  func token() async throws(HTTPError) -> String
  /// Gets a new token (the current one was refused) and makes it the one ``token()`` returns.
  func refresh() async throws(HTTPError) -> String
}

/// Sends `Authorization: Bearer <token>` with every request, and on a 401 refreshes the
/// token once and replays the request once.
///
/// Refreshing is single-flight: when many requests are refused at once, the provider's
/// `refresh()` runs once and every one of them replays with the new token; if it fails,
/// they all fail with its error. A request waits for a refresh no longer than its timeout
/// (``OutgoingRequest/timeout``): a refresh that hangs ends it with ``HTTPError/timedOut``,
/// and goes on for the others. A request refused with a token older than the provider's
/// current one replays with the current one without refreshing again. A 401 after the
/// replay is returned as it is, never looped on. A token that cannot be a header value (CR,
/// LF, another control character) fails the request with ``HTTPError/invalidRequest(reason:)``
/// before it is sent. Endpoints with
/// ``RequestOptions/noAuthentication``, and requests to another origin than the client's
/// base URL (an absolute URL as a path), are sent without a token.
public struct BearerAuthentication: Middleware {
  private let refresher: TokenRefresher

  /// Authenticates with tokens from `provider`.
  public init(provider: some CredentialProvider) {
    refresher = TokenRefresher(provider: provider)
  }

  /// Adds the token, and refreshes and replays once on a 401 (a request whose body was a
  /// one-time stream cannot be replayed: its 401 is returned, after the refresh).
  public func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    // A request the provider sends while refreshing (through this client) is its own
    // business: handling its 401 here would wait for the very refresh that sent it.
    guard !request.options.contains(.noAuthentication), request.isToClientOrigin,
      !TokenRefresher.isRefreshing
    else {
      return try await next(request)
    }
    let token = try await refresher.provider.token()
    let epoch = refresher.refreshesFinished  // after token(): a refresh before it is not news
    var request = request
    try Self.authorize(&request, with: token)
    let response = try await next(request)
    guard response.status == 401 else { return response }
    let fresh = try await refresher.token(
      replacing: token, sentAfter: epoch, timeout: request.timeout, clock: request.clock)
    guard request.isReplayable else { return response }
    try Self.authorize(&request, with: fresh)
    return try await next(request)
  }

  /// Sets `Authorization: Bearer <token>`, or throws ``HTTPError/invalidRequest(reason:)``
  /// (without the token) when it cannot be a header value: Foundation would drop a value with
  /// CR or LF without a word, and the request would go out unauthenticated.
  private static func authorize(_ request: inout OutgoingRequest, with token: String)
    throws(HTTPError)
  {
    let value = "Bearer \(token)"
    try HeaderValidation.validate(["Authorization": value])
    request.urlRequest.setValue(value, forHTTPHeaderField: "Authorization")
  }
}

/// Runs at most one refresh at a time and shares its outcome with everyone who asks.
private actor TokenRefresher {
  /// Set while a provider's `refresh()` runs.
  @TaskLocal static var isRefreshing = false

  let provider: any CredentialProvider
  private var refreshing: (id: Int, task: Task<String, any Error>)?
  private var refreshes = 0
  /// The last refresh to finish: the token it replaced, its outcome, and its number.
  private var last: (refused: String, outcome: Result<String, HTTPError>, number: Int)?
  private let finishedCount = Locked(0)

  init(provider: any CredentialProvider) {
    self.provider = provider
  }

  /// How many refreshes have finished; a request notes it before it takes its token.
  nonisolated var refreshesFinished: Int { finishedCount.withLock { $0 } }

  /// A token to use instead of `refused`, for a request that took its token when
  /// `epoch` refreshes had finished: the provider's current token if it has changed since;
  /// the outcome of a refresh of the same token that finished after the request was sent
  /// (so a burst of refusals makes one refresh even when it fails); or a new refresh, shared
  /// with everyone refused meanwhile. A waiter leaves after `timeout` on `clock` with
  /// ``HTTPError/timedOut``, or when cancelled, without ending the refresh for the others.
  func token(
    replacing refused: String, sentAfter epoch: Int, timeout: Duration?,
    clock: any TransportClock
  ) async throws(HTTPError) -> String {
    if refreshing == nil, let last, last.refused == refused, last.number > epoch {
      return try last.outcome.get()
    }
    let task: Task<String, any Error>
    if let refreshing {
      task = refreshing.task
    } else {
      refreshes += 1
      let id = refreshes
      let provider = self.provider
      task = Task {
        let outcome: Result<String, HTTPError>
        do throws(HTTPError) {
          let current = try await provider.token()
          if current != refused {
            outcome = .success(current)
          } else {
            outcome = await Self.$isRefreshing.withValue(true) {
              () async -> Result<String, HTTPError> in
              do throws(HTTPError) {
                return .success(try await provider.refresh())
              } catch {
                return .failure(error)
              }
            }
          }
        } catch {
          outcome = .failure(error)
        }
        finished(id, refused: refused, outcome: outcome)  // the task runs on this actor
        return try outcome.get()
      }
      refreshing = (id, task)
    }
    // The refresh is shared, so a waiter that is cancelled or out of time leaves at once
    // without cancelling it for the others.
    let outcome = FirstOutcome<Result<String, HTTPError>>()
    Task {
      do {
        outcome.finish(.success(try await task.value))
      } catch {
        outcome.finish(.failure(error as? HTTPError ?? .cancelled))
      }
    }
    let timer = timeout.map { timeout in
      Task {
        try await clock.wait(for: timeout)
        outcome.finish(.failure(.timedOut))
      }
    }
    defer { timer?.cancel() }
    return try await withTaskCancellationHandler {
      await outcome.value()
    } onCancel: {
      outcome.finish(.failure(.cancelled))
    }.get()
  }

  /// Records refresh `id` as over, so the next refused token starts a new one.
  private func finished(_ id: Int, refused: String, outcome: Result<String, HTTPError>) {
    guard refreshing?.id == id else { return }
    refreshing = nil
    let number = finishedCount.withLock { count in
      count += 1
      return count
    }
    last = (refused, outcome, number)
  }
}
