// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import FoundationNetworking

  extension CurlTransport {
    /// Opens a connection to `url`'s host and port: libcurl connects (through
    /// `https_proxy`/`http_proxy` with a CONNECT tunnel, and TLS for `https`/`wss`, with the
    /// transport's identity and trust), and the bytes are the caller's. `ws` and `wss` URLs
    /// are read as `http` and `https`. The transport's one thread carries every connection,
    /// as it carries requests: a connection costs its socket, and no thread. WebSockets run
    /// on it: the client runs their protocol on the channel.
    public func connect(to url: URL, options: TransportOptions) async throws(HTTPError)
      -> any TransportByteChannel
    {
      let endpoint = try ChannelEndpoint(url)
      guard !Task.isCancelled else { throw .cancelled }
      var parts = URLComponents(url: url, resolvingAgainstBaseURL: true)
      parts?.scheme = endpoint.usesTLS ? "https" : "http"
      parts?.path = "/"
      parts?.query = nil
      parts?.fragment = nil
      parts?.user = nil
      parts?.password = nil
      guard let target = parts?.url else { throw .invalidRequest(reason: "no URL to connect to") }
      return try await CurlByteChannel.connect(
        to: target, options: options, settings: settings, driver: driver.get(), timer: deadlines)
    }
  }
#endif
