/// Which options a URL is keyed and shown by in a job (`path --job`).
extension Job {
    /// The options of the first set (in file order) that lists `url`, else the job's defaults.
    /// Streams each set's URLs until it finds `url`.
    package func options(for url: String) -> JobOptions {
        for set in sets {
            var urls = set.urls.makeIterator()
            while let listed = urls.next() {
                if listed == url { return set.options }
            }
        }
        return defaults
    }

    /// The cache key a run makes for `url`: its set's `cache_key` rule over the URL with the password hidden.
    package func cacheKey(for url: String) -> String {
        options(for: url).cacheKey.key(for: URLRedaction.keyed(url))
    }
}
