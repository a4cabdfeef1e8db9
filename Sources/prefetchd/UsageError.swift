/// A command line that cannot be obeyed; printed as one line, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
