import Foundation

/// The command line, parsed by hand (the package has no dependencies).
struct Options: Equatable {
  /// The API to call; `nil` for the embedded fixture API.
  var baseURL: URL?
  /// The page of popular movies to show, from 1.
  var page = 1
  /// Whether to print the help and stop.
  var showsHelp = false
  /// What sends the requests; `nil` (the default) for the transport Courier picks for a client
  /// given none: CurlTransport on Linux when libcurl loads, URLSessionTransport otherwise.
  var transport: TransportChoice?

  /// The transports the example can run on.
  enum TransportChoice: String, Equatable {
    /// URLSessionTransport: URLSession, Courier's default on Apple platforms.
    case urlSession = "urlsession"
    /// CurlTransport: libcurl directly, Courier's default on Linux (Linux only).
    case curl
  }

  /// A command line that cannot be run as given; the program prints it and exits with 2.
  struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, in one line.
    var description: String
  }

  /// Parses the arguments after the program name. Options may be written `--page 2` or
  /// `--page=2`; `-h` is `--help`.
  static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Options {
    var options = Options()
    var remaining = arguments.makeIterator()
    while let argument = remaining.next() {
      let (name, inlineValue) = split(argument)
      func value() throws(UsageError) -> String {
        guard let value = inlineValue ?? remaining.next() else {
          throw UsageError(description: "\(name) needs a value")
        }
        return value
      }
      switch name {
      case "--help", "-h":
        guard inlineValue == nil else { throw UsageError(description: "\(name) takes no value") }
        options.showsHelp = true
      case "--base-url":
        options.baseURL = try baseURL(from: value())
      case "--page":
        options.page = try page(from: value())
      case "--transport":
        let text = try value()
        guard let choice = TransportChoice(rawValue: text) else {
          throw UsageError(description: "--transport is urlsession or curl; got '\(text)'")
        }
        options.transport = choice
      default:
        let what = argument.hasPrefix("-") ? "unknown option" : "unexpected argument"
        throw UsageError(description: "\(what) '\(name)'")
      }
    }
    return options
  }

  /// `--name=value` as its two parts; anything else as itself with no value.
  private static func split(_ argument: String) -> (String, String?) {
    guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else {
      return (argument, nil)
    }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
  }

  private static func baseURL(from text: String) throws(UsageError) -> URL {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", url.host?.isEmpty == false
    else {
      throw UsageError(
        description: "--base-url needs an absolute http(s) URL, such as "
          + "https://api.themoviedb.org/3; got '\(text)'")
    }
    return url
  }

  private static func page(from text: String) throws(UsageError) -> Int {
    guard let page = Int(text), page >= 1 else {
      throw UsageError(description: "--page needs a whole number from 1; got '\(text)'")
    }
    return page
  }

  /// The text `--help` prints.
  static let help = """
    movies — the Courier example: popular movies from a TMDB-shaped API

    USAGE: movies [--base-url URL] [--page N] [--transport urlsession|curl] [--help]

    OPTIONS:
      --base-url URL  Call the TMDB v3 API at URL (e.g. https://api.themoviedb.org/3)
                      instead of the embedded fixture API. Needs TMDB_API_KEY.
      --page N        The page of popular movies to list and to fetch the details
                      of, from 1 (default: 1).
      --transport T   urlsession (URLSessionTransport) or curl (CurlTransport,
                      libcurl directly; Linux only). By default, the one Courier
                      gives a client: curl on Linux when libcurl loads (unless
                      COURIER_TRANSPORT says otherwise), urlsession elsewhere.
                      The first line printed names it.
      -h, --help      Show this help.

    ENVIRONMENT:
      TMDB_API_KEY    Your TMDB credential, needed with --base-url. A v4 read access
                      token (a JWT, two dots) is sent as "Authorization: Bearer …";
                      a v3 API key as the api_key query item.
      COURIER_TRANSPORT
                      curl or urlsession: Courier's default transport (Linux),
                      what the example uses without --transport.

    The program walks through Courier in six sections: a page of popular movies as
    a table; the first movie's details (three requests at once); paging through the
    popular list with `for try await` (at most 5 pages) and one movie at a time with
    `.items(\\.results)`; the details of the page's movies fetched one by one, then
    8 at a time with `send(all:maximumConcurrent:)`, with both wall times; a cancelled
    request; and a TMDB error payload decoded from a typed error.

    Without --base-url it starts a fixture API on 127.0.0.1 (an ephemeral port) with
    deterministic data, and needs no network. Its movie/{id} answers wait 25 ms, a
    simulated network latency, so that fetching in parallel pays off as it would
    against a real server. Only the timings differ from run to run.

    EXIT STATUS: 0 on success, 1 when a request fails, 2 for a bad command line
    or a missing TMDB_API_KEY.
    """
}
