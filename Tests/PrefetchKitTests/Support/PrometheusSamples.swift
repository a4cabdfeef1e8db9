import Foundation

/// The samples of an exposition text, by metric name (the text before `{`): for sums over a family.
struct PrometheusSamples {
    private(set) var values: [String: [Double]] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let brace = line.firstIndex(where: { $0 == "{" || $0 == " " }),
                  let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            values[String(line[..<brace]), default: []].append(value)
        }
    }

    /// Every metric name with a sample.
    var names: Set<String> { Set(values.keys) }

    /// The sum of `name`'s samples; 0 when it has none.
    func total(_ name: String) -> Double {
        values[name, default: []].reduce(0, +)
    }
}
