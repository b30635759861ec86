import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPError {
  /// The code of a transport error's `URLError`, or `nil`.
  var urlErrorCode: URLError.Code? {
    if case .transport(let error) = self { return error.code }
    return nil
  }
}
