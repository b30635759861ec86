/// What the client asks of the transport for the current request besides the `URLRequest`:
/// the body size limit, the idle timeout and the request's credential names. Handed from
/// the client to its transport as a task-local value, because ``HTTPTransport`` carries only
/// the request.
///
/// ``URLSessionTransport`` reads it when a request starts: it enforces the size limit as
/// bytes arrive (a `Content-Length` over the limit fails before the body is read), ends a
/// transfer that goes quiet for the idle timeout, and keeps every credential header — by
/// Courier's rules, the client's `redactedNames` or a middleware's mark — from following a
/// redirect to another origin.
struct TransportContext: Sendable {
  /// The largest response body accepted, in bytes; `nil` for any.
  var maximumBytes: Int?
  /// How long the transfer may go without a byte moving either way; `nil` for no limit.
  var idleTimeout: Duration?
  /// Lowercased header and query names that carry credentials, beyond Courier's own rules.
  var credentialNames: Set<String> = []

  /// The context of the request being sent by the current task.
  @TaskLocal static var current = TransportContext()

  /// The credential rule for this request.
  var credentials: Credentials { Credentials(names: credentialNames) }
}
