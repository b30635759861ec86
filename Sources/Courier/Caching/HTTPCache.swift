import Foundation

/// A private HTTP cache (RFC 9111) that a client keeps its responses in: in memory, and
/// optionally on disk across launches. It is Courier's own, above the transport, so it
/// behaves the same on every platform and transport — including Linux, where URLCache
/// stores nothing.
///
/// ```swift
/// let cache = try HTTPCache(directory: cachesDirectory.appendingPathComponent("api"))
/// let client = HTTPClient(baseURL: url, configuration: .init(cache: cache))
/// let first = try await client.response(for: MovieApi.details(id: 42))   // from the server
/// let again = try await client.response(for: MovieApi.details(id: 42))   // from the cache
/// print(again.response.cacheStatus)   // .hit, if the server allowed it (max-age, Expires…)
/// ```
///
/// What it stores and serves follows RFC 9111 for a private cache:
/// - `GET` requests whose body is kept in memory (`send`, `response`, paging, batches) are
///   answered from it and store their answers. A byte or event stream is answered by a fresh
///   stored response (its body read from memory), and otherwise goes to the server, its
///   answer not stored; downloads pass by. A request that carries its own conditions
///   (`If-None-Match`, `If-Modified-Since`, one byte `Range`) is settled by a fresh stored
///   `200` when it can be (a `304`, or a `206` cut from it); otherwise, and with `If-Match`,
///   `If-Range` or several ranges, it goes to the server as it is.
/// - A response is stored unless `no-store` (of the request or the response) forbids it,
///   when it has a freshness of its own (`max-age`, `Expires`, `public`, `private`) or a
///   status that allows a heuristic one (200, 404…); not when its `Vary` is `*`, nor when
///   redirects led to it (it answered another URL, and a `304` from there confirms nothing:
///   the redirect may lead elsewhere next time). Every field is stored but those of one
///   connection (`Connection` and the fields it names) and those a qualified
///   `no-cache="A, B"` names (the rest is reused as if it had no `no-cache`); an entry with
///   `Set-Cookie`, or another credential field, is kept in memory only, and so is one whose
///   fields or body show a credential the request carried (of 8 bytes or more).
/// - Fresh (by `max-age`, else `Expires` less `Date`, else a tenth of the time since
///   `Last-Modified`, at most a day; less its `Age` and time in transit and in the cache),
///   it answers without a request; stale or `no-cache` (or `Pragma: no-cache`, with no
///   `Cache-Control`), it is revalidated with `If-None-Match`/`If-Modified-Since`, and a
///   `304` refreshes its headers and answers with its body. The request's `max-age`,
///   `min-fresh`, `max-stale`, `no-cache`, `no-store` and `only-if-cached` are honoured,
///   `stale-while-revalidate` (a response stale by less than its window answers at once,
///   and is revalidated in the background, one revalidation at a time), and
///   `stale-if-error` (a stale response answers a server error or a failed request within
///   its window) and `immutable` (a fresh one answers even a reload).
/// - The headers the response's `Vary` names must match, and **so must the request's
///   credentials**: a response to a request that carried `Authorization`, a cookie or an
///   API key (whatever the client counts as a credential) is only served to a request with
///   the same values. Keys and stored entries hold digests, never the values.
/// - A `POST`, `PUT`, `PATCH` or `DELETE` answered with 2xx or 3xx removes what is stored
///   for its URL, and for its `Location` and `Content-Location` on the same origin.
///
/// Cookies that URLSession adds by itself from its cookie store, and credentials it adds
/// for an authentication challenge, are not seen by Courier: they are not part of the key.
/// Courier's default session configuration keeps no cookies; call ``removeAll()`` when the
/// user signs out if yours does.
public final class HTTPCache: Sendable {
  /// How one request uses the cache: an endpoint's ``Endpoint/cachePolicy``, or a
  /// middleware's ``OutgoingRequest/cachePolicy``.
  public enum Policy: Sendable, Hashable {
    /// Fresh responses answer at once; stale ones are revalidated (the default).
    case useCache
    /// A stored response is always revalidated with the server first, fresh or not.
    case revalidate
    /// The stored response is ignored and the server asked; its answer is stored.
    case reload
    /// Only the cache answers, whatever the age of what it holds (as offline), unless the
    /// response said `no-cache` (unqualified) or `must-revalidate`; with nothing usable, the
    /// request fails with ``HTTPError/transport(_:)`` (`URLError.resourceUnavailable`) and
    /// nothing is sent.
    case onlyCache
  }

  /// Where a response came from, as ``HTTPResponse/cacheStatus`` and the observer's
  /// ``HTTPEvent/cache(_:_:)`` say.
  public enum Status: Sendable, Hashable {
    /// No cache was consulted: the client has none, or the request is not one it answers.
    case notUsed
    /// Nothing usable was stored; the response came from the server (and may now be
    /// stored). Also when a revalidation was answered with a new response.
    case miss
    /// A fresh stored response answered; nothing was sent.
    case hit
    /// A stored response answered after the server confirmed it with `304 Not Modified`.
    case revalidated
    /// A stale stored response answered, because the request allowed it
    /// (``Policy/onlyCache``, `max-stale`; nothing was sent), because asking the server
    /// failed within the response's or the request's `stale-if-error` window, or within the
    /// response's `stale-while-revalidate` window (it is then revalidated in the background).
    case stale

    /// Whether the body came from the cache.
    public var isFromCache: Bool {
      switch self {
      case .hit, .revalidated, .stale: true
      case .notUsed, .miss: false
      }
    }
  }

  let memory: MemoryCacheStore
  let disk: DiskCacheStore?
  /// What every key digest starts with: the disk store's (kept in its directory, so that
  /// every client and process using it finds the same keys), or a random one.
  let salt: String
  /// The time; tests move it.
  let clock: @Sendable () -> Date
  /// The revalidations running in the background (`stale-while-revalidate`).
  let revalidations = BackgroundRevalidations()

  /// A cache in memory only, of `memoryCapacity` bytes (10 MiB by default); a response
  /// over a quarter of it is not stored.
  public init(memoryCapacity: Int = 10 * 1024 * 1024) {
    memory = MemoryCacheStore(capacity: memoryCapacity)
    disk = nil
    salt = UUID().uuidString
    clock = { Date() }
  }

  /// A cache on disk in `directory`, created if need be, that keeps what it stores across
  /// launches (and can be shared by clients, or processes, that use the same directory),
  /// with the most recently used responses also in memory.
  ///
  /// - Parameters:
  ///   - memoryCapacity: The bytes kept in memory; 4 MiB by default.
  ///   - directory: A directory of the cache's own (everything in it may be deleted).
  ///     Deleted while in use, it is made again at the next response stored, without the
  ///     attributes you gave it (a data protection class, exclusion from backups). A stored
  ///     response that cannot be read now (a file under data protection while the device is
  ///     locked) is a miss, and kept.
  ///   - diskCapacity: The bytes kept on disk; 100 MiB by default. A response over a
  ///     quarter of it is not stored. Files past it (a budget since lowered) are trimmed
  ///     when the cache is opened, and a stored response over a quarter of it is deleted
  ///     when read: processes sharing one directory (an app and its extensions) should give
  ///     it the same capacity, or the smallest wins.
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` naming the directory when it cannot be
  ///   created or written, or its salt (the file that keys it) cannot be read now.
  public init(
    memoryCapacity: Int = 4 * 1024 * 1024, directory: URL, diskCapacity: Int = 100 * 1024 * 1024
  ) throws(HTTPError) {
    memory = MemoryCacheStore(capacity: memoryCapacity)
    let disk = try DiskCacheStore(directory: directory, capacity: diskCapacity)
    self.disk = disk
    salt = disk.salt
    clock = { Date() }
  }

  /// A cache over the given stores and clock, for tests.
  init(memory: MemoryCacheStore, disk: DiskCacheStore?, clock: @escaping @Sendable () -> Date) {
    self.memory = memory
    self.disk = disk
    salt = disk?.salt ?? UUID().uuidString
    self.clock = clock
  }

  /// The bytes the cache may keep in memory.
  public var memoryCapacity: Int { memory.capacity }
  /// The bytes it keeps in memory now (bodies, headers and bookkeeping).
  public var memoryUsage: Int { memory.size }
  /// The directory of its disk store, if it has one.
  public var directory: URL? { disk?.directory }
  /// The bytes it may keep on disk; 0 without a disk store.
  public var diskCapacity: Int { disk?.capacity ?? 0 }
  /// The bytes its files take on disk now.
  public var diskUsage: Int { disk?.usage ?? 0 }

  /// Returns once the revalidations that `stale-while-revalidate` started in the background
  /// have finished and stored what they got: for tests, and for an app that wants its cache
  /// settled before it goes to the background.
  public func backgroundRevalidationsFinished() async {
    await revalidations.finished()
  }

  /// Removes every stored response, in memory and on disk.
  public func removeAll() {
    memory.removeAll()
    disk?.removeAll()
  }

  /// Removes every response stored for `url` (all its variants and credentials).
  public func removeResponses(for url: URL) {
    remove(primary: CacheKey.primary(for: url, salt: salt))
  }

  func remove(primary: String) {
    memory.remove(primary)
    disk?.remove(primary: primary)
  }
}
