import PrefetchKit
print("prefetchd \(PrefetchVersion.string)")
