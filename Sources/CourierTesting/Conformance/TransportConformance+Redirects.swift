import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TransportConformance {
  /// Redirects: credentials stay home, 307 and 308 send the body again, and only `http`
  /// and `https` targets are followed.
  static var redirectChecks: [Check] {
    [
      Check(name: "a redirect to another origin carries no credential; one to the same does") {
        lab in
        let transport = lab.transport
        let seen = Locked<[String: [String]]>([:])
        let other = try lab.server { request, response in
          seen.withLock { $0["other"] = Self.credentials(of: request) }
          try await response.send(text: "landed")
        }
        defer { other.stop() }
        let origin = try lab.server { request, response in
          if request.path == "/away" {
            let target = other.baseURL.appendingPathComponent("landing").absoluteString
            try await response.send(status: 302, headers: ["Location": target])
          } else if request.path == "/home" {
            try await response.send(status: 302, headers: ["Location": "/landing"])
          } else {
            seen.withLock { $0["home"] = Self.credentials(of: request) }
            try await response.send(text: "landed")
          }
        }
        defer { origin.stop() }
        let headers: HTTPHeaders = [
          "Authorization": "Bearer s3cret", "Cookie": "session=s3cret", "X-Key": "s3cret",
        ]
        let options = TransportOptions(credentialNames: ["x-key"])
        for path in ["away", "home"] {
          let response = try await transport.send(
            get(origin, path, headers: headers), options: options)
          let body = try await response.body.collect()
          try expect(body == Data("landed".utf8), "\(path): did not land (\(response.head.status))")
        }
        let away = seen.withLock { $0["other"] } ?? ["(not reached)"]
        try expect(away.isEmpty, "another origin got \(away)")
        let home = seen.withLock { $0["home"] } ?? []
        try expect(home.count == 3, "the same origin got only \(home)")
      },
      Check(name: "307 and 308 send the request body again") { lab in
        let transport = lab.transport
        let server = try lab.server { request, response in
          if request.path.hasPrefix("/from") {
            let status = request.path == "/from307" ? 307 : 308
            try await response.send(status: status, headers: ["Location": "/to"])
          } else {
            try await response.send(text: "\(request.method) \(request.body.count)")
          }
        }
        defer { server.stop() }
        for status in [307, 308] {
          var request = get(server, "from\(status)")
          request.head.httpMethod = "PUT"
          request.body = .data(pattern(1000))
          let response = try await transport.send(request, options: .init())
          let answer = String(decoding: try await response.body.collect(), as: UTF8.self)
          try expect(answer == "PUT 1000", "\(status): the target got \(answer)")
        }
      },
      Check(name: "a redirect to a target that is not http or https is refused") { lab in
        let transport = lab.transport
        let server = try lab.server { _, response in
          try await response.send(status: 302, headers: ["Location": "ftp://127.0.0.1/file"])
        }
        defer { server.stop() }
        let error = try await self.error("a redirect to ftp:") { () async throws(HTTPError) in
          let response = try await transport.send(get(server, "away"), options: .init())
          return try await response.body.collect()
        }
        guard case .transport(let urlError) = error, urlError.code == .unsupportedURL else {
          throw ConformanceFailure("expected transport(unsupportedURL), got \(error)")
        }
        try expect(server.requestCount == 1, "\(server.requestCount) requests were sent")
      },
    ]
  }

  /// The credential headers a server saw.
  static func credentials(of request: LoopbackRequest) -> [String] {
    ["Authorization", "Cookie", "X-Key"].filter { request.headers[$0] != nil }
  }
}
