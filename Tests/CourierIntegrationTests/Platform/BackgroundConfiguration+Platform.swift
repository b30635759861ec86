import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSessionConfiguration {
  /// A background configuration, as an app makes one. Apple platforms have the factory;
  /// FoundationNetworking has none, but its `identifier` is settable, and the identifier is
  /// what makes a configuration a background one.
  static func backgroundForTesting() -> URLSessionConfiguration {
    let identifier = "com.example.courier-tests.\(UUID().uuidString)"
    #if canImport(FoundationNetworking)
      let configuration = URLSessionConfiguration.default
      configuration.identifier = identifier
      return configuration
    #else
      return URLSessionConfiguration.background(withIdentifier: identifier)
    #endif
  }
}
