#if Tracing
  import Foundation
  import Tracing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// One request's client spans (the `Tracing` trait): a span for each request sent to a
  /// server, as OpenTelemetry's HTTP client conventions ask of an instrumentation that sees
  /// each one — each attempt of a retry and each hop of a redirect is a span of its own, a
  /// sibling of the others under the caller's span, with no span around them all. An answer
  /// from the cache, or shared with an identical request in flight, sends nothing and has no
  /// span of its own.
  ///
  /// A span starts as the request leaves, after the middleware, the cache and the limits, so
  /// the trace context injected into its headers is part of neither a cache key nor the key
  /// identical requests share an answer by. It ends when the answer's body has been taken
  /// (collected, written to a file or read by a stream's reader) or, for a redirect, when the
  /// next hop leaves; a failure, a cancellation included, ends it at once.
  final class RequestTracing: Sendable {
    let tracer: any Tracer
    /// How many requests have been sent for the request, across its attempts and redirects.
    private let sent = Locked(0)

    /// The spans of one request made with `tracer`; `nil` when there is none to make them,
    /// or a `NoOpTracer`.
    init?(_ tracer: (any Tracer)?) {
      guard let tracer, !(tracer is NoOpTracer) else { return nil }
      self.tracer = tracer
    }

    /// Sends `request` through the client's redirect loop (``RedirectPolicy/following(_:options:credentialNames:cookies:ownCookie:clock:sendOnce:)``)
    /// and takes the answer's body where `exchange` says, with a span for each hop.
    func send(
      _ request: TransportRequest, options: TransportOptions, credentials: Credentials,
      cookies: CookieJar?, ownCookie: String?, redirects: RedirectPolicy,
      transport: any HTTPTransport,
      exchange: Exchange, holding permits: RequestLimiter.Permits?, limiter: RequestLimiter,
      events: EventReporter?, clock: any TransportClock
    ) async throws(HTTPError) -> HTTPResponse {
      // The span of the hop whose answer came last, until its body has been dealt with.
      var answered: (any Span)?
      var permits = permits
      do throws(HTTPError) {
        let response = try await redirects.following(
          request, options: options, credentialNames: credentials.names, cookies: cookies,
          ownCookie: ownCookie, clock: clock
        ) { hop, options throws(HTTPError) in
          // A redirect's body was drained before the next hop leaves.
          answered?.end()
          answered = nil
          try await limiter.follow(&permits, to: hop.head.url, until: options.deadline) {
            events?.waiting(for: .concurrencyLimit)
          }
          var hop = hop
          let span = start(&hop, credentials: credentials)
          do throws(HTTPError) {
            let response = try await transport.send(hop, options: options)
            Self.record(status: response.head.status, on: span)
            answered = span
            return response
          } catch {
            Self.record(error, of: hop, credentials: credentials, on: span)
            throw error
          }
        }
        let held = permits
        permits = nil
        let answer = try await exchange.take(response, to: request, holding: held)
        guard let span = answered else { return answer }
        answered = nil
        // A body still to come ends the span once its reader has read it or let it go.
        guard let body = answer.bodyStream else {
          span.end()
          return answer
        }
        body.whenRead { end in
          guard case .failure(let error) = end else { return span.end() }
          Self.record(error, of: request, credentials: credentials, on: span)
        }
        return answer
      } catch {
        permits?.release()
        // The answer's body failed, or the redirect after it was refused.
        if let answered {
          Self.record(error, of: request, credentials: credentials, on: answered)
        }
        throw error
      }
    }

    /// Starts the span of `hop`, a client span named after its method, with the conventions'
    /// attributes, and injects its context into `hop`'s headers.
    private func start(_ hop: inout TransportRequest, credentials: Credentials) -> any Span {
      let resends = sent.withLock { count in
        defer { count += 1 }
        return count
      }
      let method = HTTPMethod(rawValue: hop.head.httpMethod?.uppercased() ?? "GET")
      let known = OpenTelemetryHTTP.knownMethods.contains(method)
      let span = tracer.startSpan(
        known ? method.rawValue : "HTTP", context: ServiceContext.current ?? .topLevel,
        ofKind: .client)
      var attributes = SpanAttributes()
      attributes["http.request.method"] = known ? method.rawValue : "_OTHER"
      if !known { attributes["http.request.method_original"] = method.rawValue }
      let url = hop.head.url
      attributes["url.full"] = credentials.sending(hop.head).describe(url)
      if let host = url?.host {
        attributes["server.address"] = host
        if let port = OpenTelemetryHTTP.serverPort(scheme: url?.scheme, port: url?.port) {
          attributes["server.port"] = port
        }
      }
      if resends > 0 { attributes["http.request.resend_count"] = resends }
      span.attributes = attributes
      tracer.inject(span.context, into: &hop.head, using: HeaderInjector())
      return span
    }

    /// Records the status of an answer: a 4xx or 5xx makes the span an error, its
    /// `error.type` the status.
    private static func record(status: Int, on span: any Span) {
      span.attributes["http.response.status_code"] = status
      guard status >= 400 else { return }
      span.attributes["error.type"] = "\(status)"
      span.setStatus(SpanStatus(code: .error))
    }

    /// Records `error` and ends the span: its `error.type` is the ``HTTPError`` case, and the
    /// error is recorded with the credentials of `request` redacted.
    private static func record(
      _ error: HTTPError, of request: TransportRequest, credentials: Credentials,
      on span: any Span
    ) {
      span.attributes["error.type"] = error.typeName
      span.recordError(
        credentials.sending(request.head).applied(to: error))
      span.setStatus(SpanStatus(code: .error))
      span.end()
    }
  }

  /// Writes a tracer's trace context into a request's headers.
  struct HeaderInjector: Injector {
    func inject(_ value: String, forKey name: String, into request: inout URLRequest) {
      request.setValue(value, forHTTPHeaderField: name)
    }
  }
#endif
