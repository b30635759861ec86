// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl

  /// Connection caches for byte channels, each shared by at most `size` of them.
  ///
  /// libcurl 7.88 finds a connect-only connection by walking its cache: for each
  /// `curl_easy_send` and `curl_easy_recv`, and twice when the handle leaves the multi handle
  /// (once to close it, once more, in vain, to mark it). With every channel in the multi
  /// handle's one cache, closing n channels cost n² steps (10,000 took 3 s) and each send or
  /// receive over TLS a step per open channel. A channel's handle is given a share
  /// (`CURL_LOCK_DATA_CONNECT`) with room, so each walk is at most `size` connections.
  ///
  /// Used under the driver's lock only (the shares have no lock functions). A handle joins
  /// before it is added to the multi handle and leaves through ``cleanUp(_:)``; a share left
  /// empty is freed while another remains, and the last with the driver (``close()``).
  final class CurlConnectionShares {
    private let size: Int
    /// How many handles use each share; the shares with room.
    private var counts: [UnsafeMutableRawPointer: Int] = [:]
    private var roomy: Set<UnsafeMutableRawPointer> = []
    private var shareOf: [UnsafeMutableRawPointer: UnsafeMutableRawPointer] = [:]

    init(size: Int = 32) {
      self.size = size
    }

    /// Gives `easy` a share with room (a new one when none has). Without one (libcurl could
    /// make none) it keeps the multi handle's cache, which works, only slower.
    func join(_ easy: UnsafeMutableRawPointer) {
      guard let share = roomy.first ?? made() else { return }
      guard courier_curl_easy_setopt_share(easy, share) == 0 else { return }
      shareOf[easy] = share
      counts[share, default: 0] += 1
      if counts[share] == size { roomy.remove(share) }
    }

    /// Frees `easy` (`curl_easy_cleanup`, after which its share no longer counts it).
    func cleanUp(_ easy: UnsafeMutableRawPointer) {
      courier_curl_easy_cleanup(easy)
      guard let share = shareOf.removeValue(forKey: easy), let count = counts[share] else {
        return
      }
      if count == 1 && counts.count > 1 {
        counts[share] = nil
        roomy.remove(share)
        _ = courier_curl_share_cleanup(share)
      } else {
        counts[share] = count - 1
        roomy.insert(share)
      }
    }

    /// How many handles use each share (for tests).
    var inUse: [Int] { Array(counts.values) }

    /// Frees the shares, once no handle uses them.
    func close() {
      for share in counts.keys { _ = courier_curl_share_cleanup(share) }
      counts = [:]
      roomy = []
    }

    private func made() -> UnsafeMutableRawPointer? {
      guard let share = courier_curl_connection_share() else { return nil }
      counts[share] = 0
      roomy.insert(share)
      return share
    }
  }
#endif
