#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Glibc

  /// nginx serving a directory over HTTPS with HTTP/2 (or HTTP/2 in the clear) on 127.0.0.1,
  /// with a certificate made for the test (`IP:127.0.0.1`), for what `openssl s_server` cannot
  /// show: an exchange in HTTP/2. nginx is not part of the package: the tests that use it run only where it is
  /// installed (``isInstalled``; `Benchmarks/run.sh` installs it). Call `stop()` when done.
  final class NginxTLSServer: Sendable {
    let directory: URL
    let certificate: URL
    let port: Int
    /// Whether it speaks HTTP/2 in the clear (h2c, for clients with prior knowledge) instead.
    let cleartext: Bool

    /// The nginx executable, when there is one built with HTTP/2 (asked once per process).
    static var executable: String? {
      get async { await foundExecutable.value }
    }

    private static let foundExecutable = Task { () -> String? in
      let path = "/usr/sbin/nginx"
      guard FileManager.default.isExecutableFile(atPath: path),
        let built = try? await ChildProcess.shell("\(path) -V 2>&1"),
        String(decoding: built, as: UTF8.self).contains("http_v2_module")
      else { return nil }
      return path
    }

    /// Whether nginx with HTTP/2 is installed.
    static var isInstalled: Bool {
      get async { await executable != nil }
    }

    /// A server of `files` (name → bytes), listening; with `cleartext`, HTTP/2 over plain TCP
    /// (only clients with prior knowledge speak it), without TLS. `directives` go into the
    /// files' `location` block (`add_header …;`).
    static func start(
      serving files: [String: Data], cleartext: Bool = false, directives: String = ""
    ) async throws -> NginxTLSServer {
      guard let nginx = await executable else { throw CocoaError(.executableNotLoadable) }
      let directory = try await TestCertificates.selfSigned.install("courier-nginx")
      do {
        let root = directory.appendingPathComponent("root")
        try await onOwnThread {
          chmod(directory.path, 0o755)  // nginx's workers run as another user
          try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
          chmod(root.path, 0o755)
          for (name, bytes) in files {
            try bytes.write(to: root.appendingPathComponent(name))
            chmod(root.appendingPathComponent(name).path, 0o644)
          }
        }
        let certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        // A port the OS had free a moment ago; another test may take it before nginx binds
        // it, so nginx is started again on another port until it runs (its pid file says so).
        for _ in 0..<5 {
          let probe = try LoopbackServer { _, _ in }
          let candidate = probe.port
          probe.stop()
          let file = try await onOwnThread {
            try Self.configure(
              directory: directory, port: candidate, root: root, certificate: certificate,
              key: key, cleartext: cleartext, directives: directives)
          }
          _ = try await ChildProcess.shell(
            "'\(nginx)' -e '\(directory.path)/error.log' -c '\(file.path)' 2>&1")
          if FileManager.default.fileExists(
            atPath: directory.appendingPathComponent("nginx.pid").path)
          {
            return NginxTLSServer(
              directory: directory, certificate: certificate, port: candidate,
              cleartext: cleartext)
          }
        }
        throw CocoaError(.executableLoad)
      } catch {
        try? FileManager.default.removeItem(at: directory)
        throw error
      }
    }

    private init(directory: URL, certificate: URL, port: Int, cleartext: Bool) {
      self.directory = directory
      self.certificate = certificate
      self.port = port
      self.cleartext = cleartext
    }

    /// Writes nginx's configuration for `port` and returns its file.
    private static func configure(
      directory: URL, port: Int, root: URL, certificate: URL, key: URL, cleartext: Bool,
      directives: String
    ) throws -> URL {
      let path = directory.path
      let listen = cleartext ? "http2" : "ssl http2"
      let configuration = """
        worker_processes 1;
        pid \(path)/nginx.pid;
        error_log \(path)/error.log;
        events { worker_connections 256; }
        http {
          access_log off;
          client_body_temp_path \(path)/body;
          proxy_temp_path \(path)/proxy;
          fastcgi_temp_path \(path)/fastcgi;
          uwsgi_temp_path \(path)/uwsgi;
          scgi_temp_path \(path)/scgi;
          server {
            listen 127.0.0.1:\(port) \(listen);
            ssl_certificate \(certificate.path);
            ssl_certificate_key \(key.path);
            location / { root \(root.path); \(directives) }
          }
        }
        """
      let file = directory.appendingPathComponent("nginx.conf")
      try configuration.write(to: file, atomically: true, encoding: .utf8)
      return file
    }

    var url: URL { URL(string: "\(cleartext ? "http" : "https")://127.0.0.1:\(port)/")! }

    /// Ends nginx (its master, by the pid it wrote, which stops the workers) and deletes the
    /// directory.
    func stop() {
      let pidFile = directory.appendingPathComponent("nginx.pid").path
      if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
        let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
      {
        kill(pid, SIGTERM)
      }
      try? FileManager.default.removeItem(at: directory)
    }
  }
#endif
