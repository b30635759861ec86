// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation

  extension CurlTransport {
    /// A ``ServerTrust`` as libcurl takes it: the certificate authorities as one PEM blob
    /// (`CURLOPT_CAINFO_BLOB`, which replaces the `CURLOPT_CAINFO` bundle), the directory of
    /// roots (`CURLOPT_CAPATH`) turned off or pointed at the system's, and the pins.
    struct Trust: Sendable, Equatable {
      /// What `CURLOPT_CAPATH` is set to.
      enum Directory: Sendable, Equatable {
        /// Left as libcurl has it (its build's default; Debian's is `/etc/ssl/certs`).
        case libraryDefault
        /// Cleared: libcurl reads its default directory beside any bundle it is given, blob or
        /// file, so only a cleared one keeps the system's roots out.
        case cleared
        /// This directory of hashed roots (`openssl rehash`).
        case path(String)
      }

      /// The PEM blob of the trusted roots; `nil` for libcurl's own (the system's).
      let authorities: Data?
      /// What `CURLOPT_CAPATH` is set to.
      let directory: Directory
      /// `CURLOPT_PINNEDPUBLICKEY`: `sha256//…;sha256//…`; `nil` for no pinning.
      let pins: String?

      /// `resolved` for libcurl. With `trustsSystemRoots`, the system's roots stay: from the
      /// system's directory of hashed roots (`systemDirectory`), which OpenSSL reads a
      /// certificate at a time as a chain needs it, or else from its bundle (`systemBundle`)
      /// after the authorities in the blob, which OpenSSL parses whole for every new
      /// connection (a request on a new connection over loopback: 4–5 ms with the directory,
      /// 33–39 ms with Debian's 140 roots in the blob, on a 2-core machine).
      init(
        _ resolved: ResolvedTrust,
        systemDirectory: @autoclosure () -> String? = Trust.systemDirectory,
        systemBundle: @autoclosure () -> Data? = Trust.systemBundle
      ) {
        if resolved.anchors.isEmpty {
          authorities = nil
          directory = .libraryDefault
        } else if !resolved.trustsSystemRoots {
          authorities = resolved.pemAnchors
          directory = .cleared
        } else if let systemDirectory = systemDirectory() {
          authorities = resolved.pemAnchors
          directory = .path(systemDirectory)
        } else {
          authorities = resolved.pemAnchors + (systemBundle() ?? Data())
          directory = .libraryDefault
        }
        pins =
          resolved.pins.isEmpty
          ? nil : resolved.pins.map { "sha256//\($0.base64EncodedString())" }.joined(separator: ";")
      }

      /// Sets the trust on `easy`; libcurl's result codes.
      func apply(to easy: UnsafeMutableRawPointer) -> [Int32] {
        var codes: [Int32] = []
        if let authorities {
          codes.append(
            authorities.withUnsafeBytes {
              courier_curl_easy_setopt_blob(
                easy, Curl.Option.caInfoBlob, $0.baseAddress, $0.count)
            })
        }
        switch directory {
        case .libraryDefault: break
        case .cleared:
          codes.append(courier_curl_easy_setopt_pointer(easy, Curl.Option.caPath, nil))
        case .path(let path):
          codes.append(courier_curl_easy_setopt_pointer(easy, Curl.Option.caPath, path))
        }
        if let pins {
          codes.append(courier_curl_easy_setopt_pointer(easy, Curl.Option.pinnedPublicKey, pins))
        }
        return codes
      }

      /// The system's directory of hashed roots (names like `9d66eef0.0`, as `openssl rehash`
      /// makes them), looked for once where distributions keep it (Debian, Ubuntu, Alpine and
      /// Arch: `/etc/ssl/certs`; Red Hat and Fedora: `/etc/pki/tls/certs`).
      static let systemDirectory: String? = {
        ["/etc/ssl/certs", "/etc/pki/tls/certs"].first { path in
          let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
          return names.contains(where: isHashedName)
        }
      }()

      /// Whether `name` is OpenSSL's name for a hashed certificate: 8 hexadecimal digits, a
      /// dot, a number.
      static func isHashedName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 8 && parts[0].allSatisfy(\.isHexDigit)
          && !parts[1].isEmpty && parts[1].allSatisfy(\.isNumber)
      }

      /// The system's bundle of roots, read once: the first of the paths curl's build looks
      /// for its default `CURLOPT_CAINFO` at (its `configure`'s list: Debian and Ubuntu, Red
      /// Hat and Fedora, older Red Hat, FreeBSD, and the rest) that can be read.
      static let systemBundle: Data? = {
        let paths = [
          "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
          "/usr/share/ssl/certs/ca-bundle.crt", "/usr/local/share/certs/ca-root-nss.crt",
          "/etc/ssl/cert.pem",
        ]
        return paths.lazy.compactMap { FileManager.default.contents(atPath: $0) }.first
      }()
    }
  }
#endif
