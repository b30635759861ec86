import Foundation

/// The JSON coders for TMDB's snake_case keys, shared by the client and the fixture API so
/// that both read and write the same shape from the same models.
///
/// The models use camelCase names and no `CodingKeys`; the coders convert (`vote_average` ↔
/// `voteAverage`). Decode TMDB's error payload with the same decoder:
/// `error.decodeBody(as: TMDBError.self, using: TMDBCoding.decoder())`.
enum TMDBCoding {
  /// A decoder that reads snake_case keys into camelCase properties.
  static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
  }

  /// An encoder that writes camelCase properties as snake_case keys, in a stable key order.
  static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }
}
