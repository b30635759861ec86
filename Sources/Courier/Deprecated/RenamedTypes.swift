// The names of 0.1 that 1.0 renamed, kept as deprecated aliases for one minor version (they go
// in 1.1); CHANGELOG lists each. A transport author's types all begin with `Transport`.

/// Renamed ``TransportRequestBody``.
@available(*, deprecated, renamed: "TransportRequestBody")
public typealias BodySource = TransportRequestBody

/// Renamed ``TransportRequestBody/Chunks``.
@available(*, deprecated, renamed: "TransportRequestBody.Chunks")
public typealias BodyChunks = TransportRequestBody.Chunks

/// Renamed ``TransportResponseBody``.
@available(*, deprecated, renamed: "TransportResponseBody")
public typealias ResponseBody = TransportResponseBody

/// Renamed ``TransportResponseBody/Writer``.
@available(*, deprecated, renamed: "TransportResponseBody.Writer")
public typealias ResponseBodyWriter = TransportResponseBody.Writer
