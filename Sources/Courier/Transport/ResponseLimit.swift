/// The largest response body the current request accepts, handed from the client to its
/// transport as a task-local value (the transport protocol carries only the request).
/// ``URLSessionTransport`` enforces it as bytes arrive: a `Content-Length` over the limit
/// fails before the body is read, and a body that grows past it is cut off at once.
enum ResponseLimit {
  @TaskLocal static var maximumBytes: Int?
}
