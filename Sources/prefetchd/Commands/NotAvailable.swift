/// A command whose engine has not landed yet: it says so plainly and does nothing (exit 2).
struct NotAvailable: Error, CustomStringConvertible {
    let command: String
    let engine: String

    var description: String {
        "\(command): not available yet in this version (\(engine) has not landed); nothing was done"
    }
}
