import Foundation

/// The text of a job file named `name` whose one set fetches `count` bodies of `size` bytes each
/// from `server` (validate: none) into `cache`, with `limits` (such as `max_size: 4000`) in its
/// `cache:` section.
func sizedBodiesJob(_ name: String, cache: String, limits: [String], server: FixtureServer, count: Int = 10, size: Int = 1_000) -> String {
    """
    version: 1
    name: \(name)
    cache:
      path: "\(cache)"
    \(limits.map { "  " + $0 }.joined(separator: "\n"))
    network: { allow_private: true }
    defaults: { retries: 0, timeout: 5s, validate: none }
    sets:
      - name: bodies
        urls:
    \((1...count).map { "      - \"\(server.url("/bytes/\(size)/\($0)"))\"" }.joined(separator: "\n"))

    """
}
