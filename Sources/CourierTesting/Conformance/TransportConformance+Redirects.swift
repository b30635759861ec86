import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TransportConformance {
  /// Redirects are the client's: a transport hands every 3xx back as it came.
  static var redirectChecks: [Check] {
    [
      Check(name: "a redirect is handed back as it came, with its body, and not followed") {
        lab in
        let transport = lab.transport
        let server = try lab.server { request, response in
          guard let status = Int(request.path.dropFirst()) else {
            return try await response.send(text: "followed")
          }
          let target = status == 301 ? "ftp://127.0.0.1/file" : "/landing"
          try await response.send(
            status: status, headers: ["Location": target], body: Data("moved \(status)".utf8))
        }
        defer { server.stop() }
        for (sent, status) in [301, 302, 303, 307, 308].enumerated() {
          var request = get(server, "\(status)")
          request.head.httpMethod = "PUT"
          request.body = .data(pattern(100))
          let response = try await transport.send(request, options: .init())
          let body = String(decoding: try await response.body.collect(), as: UTF8.self)
          try expect(
            response.head.status == status && body == "moved \(status)",
            "\(status) came back as \(response.head.status) \"\(body)\"")
          try expect(
            response.head.headers["Location"] != nil, "\(status) lost its Location field")
          try expect(
            server.requestCount == sent + 1, "\(server.requestCount) requests after \(status)")
        }
      }
    ]
  }
}
