import Courier
import Foundation

// The Courier example: popular movies from a TMDB-shaped API. See `movies --help`.

let options: Options
do {
  options = try Options.parse(CommandLine.arguments.dropFirst())
} catch {
  Console.error("movies: \(error)\nTry 'movies --help' for the options.")
  exit(2)
}
if options.showsHelp {
  print(Options.help)
  exit(0)
}

// Where the requests go: the API named on the command line, or the embedded fixture API.
let environment: Environment
let fixture: FixtureAPI?
if let baseURL = options.baseURL {
  let key = ProcessInfo.processInfo.environment[APIKey.environmentVariable] ?? ""
  guard !key.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
    Console.error(
      "movies: --base-url needs a TMDB credential in the environment variable "
        + "\(APIKey.environmentVariable) (a v3 API key or a v4 read access token).")
    exit(2)
  }
  environment = .production(baseURL, key: APIKey(key))
  fixture = nil
} else {
  do {
    let api = try FixtureAPI()
    environment = .fixture(api.baseURL)
    fixture = api
  } catch {
    Console.error("movies: could not start the fixture API: \(error)")
    exit(1)
  }
}

// The transport --transport names, or none: then the first client makes Courier's default
// (CurlTransport on Linux when libcurl loads), and every other client shares it.
let chosen: (any HTTPTransport)?
do throws(Options.UsageError) {
  chosen = try options.transport?.make()
} catch {
  Console.error("movies: \(error)")
  exit(2)
}
let walkthrough = Walkthrough(client: environment.makeClient(transport: chosen))
let transport = walkthrough.client.transport
print(
  "Courier example, calling \(environment.summary) over \(type(of: transport))"
    + (chosen == nil ? " (Courier's default here)" : "") + "\n")
var exitCode: Int32 = 0
do throws(HTTPError) {
  print("── Popular movies ──\n")
  let page = try await walkthrough.listPopular(page: options.page)
  if let first = page.results.first {
    print("\n── The first movie on the page ──\n")
    try await walkthrough.showDetails(of: first.id)
  }
  print("\n── Paging ──\n")
  try await walkthrough.pageThroughPopular(maximumPages: 5, takingFirst: 25)
  if !page.results.isEmpty {
    print("\n── Fetching details in parallel ──\n")
    try await walkthrough.fetchDetails(of: page.results, maximumConcurrent: 8)
  }
  if let first = page.results.first {
    print("\n── Caching ──\n")
    let cached = environment.makeClient(transport: transport, cache: HTTPCache())
    try await walkthrough.showCaching(of: first.id, using: cached)
    print("\n── Downloading a poster ──\n")
    let images = HTTPClient(baseURL: environment.imageBaseURL, transport: transport)
    try await walkthrough.downloadPoster(of: first, from: images)
  }
  print("\n── A cancelled request ──\n")
  await walkthrough.cancelRequest(forVideosOf: FixtureData.slowVideosID, after: .milliseconds(100))
  print("\n── A typed error ──\n")
  try await walkthrough.showNotFound(id: FixtureData.unknownID)
} catch {
  // TMDB's own message when the server sent one (a bad key, a page past 500), otherwise
  // Courier's description, which names the URL with credentials redacted.
  if let status = error.status,
    let payload = error.decodeBody(
      as: TMDBError.self, using: walkthrough.client.configuration.decoder)
  {
    Console.error("movies: TMDB answered \(status): \(payload.statusMessage)")
  } else {
    Console.error("movies: \(error)")
  }
  exitCode = 1
}
fixture?.stop()
exit(exitCode)
