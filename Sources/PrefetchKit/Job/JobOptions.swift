/// The fully resolved options of one set: built-in defaults, then the job's `defaults:`, then the
/// set's own keys. `headers` merge name by name (ignoring case); every other key replaces.
package struct JobOptions: Sendable, Equatable {
    /// Transfers at once for this set, 1...1024.
    package var concurrency = 16
    /// Transfers at once to one host, 1...concurrency. When no `per_host` is written anywhere it is
    /// 6, lowered to `concurrency` if that is smaller.
    package var perHost = 6
    package var order = QueueOrder.fifo
    /// Whole-transfer timeout; always above zero.
    package var timeout = Duration.seconds(15)
    /// Retries of transient failures, 0...100.
    package var retries = 2
    /// Try URLs again even when the failure ledger says they failed for good.
    package var retryFailed = false
    package var refresh = RefreshPolicy.never
    /// How long a body cut part way, and not resumed within the run, is kept for a later run to
    /// resume (a clean removes it after that); zero keeps none.
    package var resumeMaxAge = Duration.seconds(86_400)
    /// Request headers; names are unique ignoring case.
    package var headers = ["Accept": "image/*,*/*;q=0.8"]
    package var credentials: CredentialSettings?
    package var cookies = false
    /// Accept invalid TLS certificates.
    package var insecureTLS = false
    package var validate = ValidationLevel.decode
    /// Accepted formats, without repeats, in the order written.
    package var formats = ImageFormat.allCases
    /// Largest body accepted, above zero.
    package var maxBytes: Int64 = 20 << 20
    /// Largest width x height accepted, above zero (of a still, an animation's canvas and each frame).
    package var maxPixels = ImageLimits.defaultMaxPixels
    /// Most frames an animation may have, above zero.
    package var maxFrames = ImageLimits.defaultMaxFrames
    /// Most frames x canvas pixels an animation may have, above zero.
    package var maxFramePixels = ImageLimits.defaultMaxFramePixels
    /// How a URL becomes a cache key; `.none` keeps the URL as it is.
    package var cacheKey = CacheKeyRule.none
    /// Query parameters whose values every URL shown (logs, reports, JUnit, the index, the ledger)
    /// has as `***`, in lower case and compared without case; the cache key keeps them.
    package var redactParams = URLRedaction.commonSecrets
    /// `stall:`: a body slower than this is aborted as a timeout.
    package var stall = StallLimit.default
    /// `proxy:`; nil connects directly (libcurl's proxy environment variables are never read).
    package var proxy: ProxySettings?
    /// `no_proxy:`: host names, `.domain` suffixes, addresses and CIDR ranges reached without the proxy.
    package var noProxy: [String] = []
    /// `ca_file:` (relative to the job file's folder): certificate authorities trusted in place of the
    /// system's bundle file (its hashed folder stays trusted unless `ca_path` is given too).
    package var caFile: String?
    /// `ca_path:` (relative to the job file's folder): a folder of hashed certificates trusted in place of
    /// the system's hashed folder (its bundle file stays trusted unless `ca_file` is given too).
    package var caPath: String?
    /// `connect_to:`: requests for a host go to another host and port.
    package var connectTo: [ConnectTarget] = []
    /// The set's own rate limit, over all its hosts; nil for none.
    package var rateLimit: RateLimit?
    /// `variants:`: smaller copies made from every stored original, each a cache entry of its own.
    package var variants: [VariantSpec] = []
    /// `keep_original:`; false stores only the variants.
    package var keepOriginal = true

    /// The built-in defaults, used for every key a job file leaves out.
    package init() {}
}

/// HTTP credentials; the password is read from `passwordSource` when the job is loaded and is never
/// printed.
package struct CredentialSettings: Sendable, Equatable, CustomStringConvertible {
    package var username: String
    package var passwordSource: PasswordSource
    package var password: String

    package var description: String { "\(username) (password from \(passwordSource))" }
}

/// Where a password comes from: `password_env` or `password_file`.
package enum PasswordSource: Sendable, Equatable, CustomStringConvertible {
    /// The environment variable's name.
    case environment(String)
    /// The file's path, relative paths resolved from the job file's folder.
    case file(String)

    package var description: String {
        switch self {
        case .environment(let variable): "$\(variable)"
        case .file(let path): "file \(path)"
        }
    }
}

/// A proxy: `url` is `http://`, `https://`, `socks5://` or `socks5h://` with a host and port and no
/// credentials; those come from `username` and `password_env` or `password_file`.
package struct ProxySettings: Sendable, Equatable, CustomStringConvertible {
    package var url: String
    package var credentials: CredentialSettings?

    package var description: String { credentials.map { "\(url) as \($0)" } ?? url }
}

/// `cache:` — where the cache lives and how it is kept in bounds.
package struct CacheSettings: Sendable, Equatable {
    /// Absolute path. A relative `cache.path` resolves against the current working directory
    /// at load time, not against the job file's folder.
    package var path: String
    package var layout = CacheLayout.native
    /// Size cap in bytes; 0 means no cap.
    package var maxSize: Int64 = 0
    /// Entries older than this expire; zero means never.
    package var maxAge = Duration.seconds(7 * 86_400)
    package var expireBy = ExpiryClock.access
    /// Fraction of `maxSize` a trim goes down to, in (0, 1].
    package var trimTo = 0.8
    /// fsync every stored file and its folder before the index row is written.
    package var durable = false

    /// The default path when `cache.path` is absent.
    package static let defaultPath = ".prefetchd-cache"

    /// The cache folder when none is named: `$PREFETCHD_CACHE_DIR` when set and not empty, else
    /// `defaultPath` (relative paths are the caller's to resolve).
    package static func defaultPath(environment: [String: String]) -> String {
        environment["PREFETCHD_CACHE_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultPath
    }

    package init(path: String) {
        self.path = path
    }
}

/// One entry of `hosts:`: the limit every request of the run to the hosts the pattern matches shares.
package struct HostSettings: Sendable, Equatable {
    /// A host name, `*.example.com` or `*`, in lower case.
    package var pattern: String
    package var rateLimit: RateLimit
}

/// `network:` — job-level address rules.
package struct NetworkSettings: Sendable, Equatable {
    /// False refuses loopback, private and link-local addresses (checked on the resolved IP).
    package var allowPrivate = true
    /// Host patterns a URL's host must match; empty allows any.
    package var allowHosts: [String] = []
    /// Host patterns refused even when allowed.
    package var denyHosts: [String] = []

    package init() {}
}
