/// The version printed by `prefetchd --version` and sent in the User-Agent.
public enum PrefetchVersion {
    public static let string = "0.1.0"
}
