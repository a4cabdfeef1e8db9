/// The shard a run handles from its command line and its environment: `--shard K/N`, or a
/// Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` (0-based) with `PREFETCHD_SHARDS=N`, which
/// selects shard index+1 of N. Both given must agree.
package enum ShardEnvironment {
    package static let indexVariable = "JOB_COMPLETION_INDEX"
    package static let countVariable = "PREFETCHD_SHARDS"

    /// The shard to run; nil when neither names one (the whole job). `option` is `--shard`'s text.
    package static func resolve(option: String?, environment: [String: String]) throws(ShardChoiceError) -> Shard? {
        let fromOption = try option.map { text throws(ShardChoiceError) -> Shard in
            guard let shard = Shard(text) else { throw .badOption(text) }
            return shard
        }
        let fromEnvironment = try shard(in: environment)
        if let fromOption, let fromEnvironment, fromOption != fromEnvironment {
            throw .disagree(option: fromOption, environment: fromEnvironment)
        }
        return fromOption ?? fromEnvironment
    }

    /// The shard the two variables select; nil when neither is set.
    private static func shard(in environment: [String: String]) throws(ShardChoiceError) -> Shard? {
        switch (environment[indexVariable], environment[countVariable]) {
        case (nil, nil):
            return nil
        case (let index?, nil):
            throw .missingVariable(set: indexVariable, setValue: index, missing: countVariable)
        case (nil, let count?):
            throw .missingVariable(set: countVariable, setValue: count, missing: indexVariable)
        case (let indexText?, let countText?):
            guard let count = Int(countText), count >= 1 else { throw .badCount(countText) }
            guard let index = Int(indexText), index >= 0 else { throw .badIndex(indexText) }
            guard let shard = Shard(index: index + 1, count: count) else { throw .indexTooLarge(index: index, count: count) }
            return shard
        }
    }
}

/// Why the shard to run could not be chosen; each a one-line usage error.
package enum ShardChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    case badOption(String)
    case missingVariable(set: String, setValue: String, missing: String)
    case badCount(String)
    case badIndex(String)
    case indexTooLarge(index: Int, count: Int)
    case disagree(option: Shard, environment: Shard)

    package var description: String {
        let index = ShardEnvironment.indexVariable, count = ShardEnvironment.countVariable
        switch self {
        case .badOption(let text):
            return "--shard must be K/N, whole numbers with 1 <= K <= N <= \(Int.max), like 2/4, not `\(text)`"
        case .missingVariable(let set, let value, let missing):
            return "\(set)=\(value) is set but \(missing) is not: a shard from the environment needs both"
        case .badCount(let text):
            return "\(count) must be a whole number of shards, 1 or more, not `\(text)`"
        case .badIndex(let text):
            return "\(index) must be a whole number from 0 (the first shard), not `\(text)`"
        case .indexTooLarge(let value, let shards):
            return "\(index)=\(value) is not below \(count)=\(shards) (the index counts from 0)"
        case .disagree(let option, let environment):
            return "--shard \(option.label) disagrees with \(index) and \(count), which select shard \(environment.label)"
        }
    }
}
