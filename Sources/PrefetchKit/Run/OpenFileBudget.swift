/// How many keys a run may hold at once under the process's open-file limit: every key held keeps its
/// body's file open and every transfer a connection, beside what the index, the WAL, the cache folder,
/// the libraries and the standard streams keep open.
struct OpenFileBudget {
    /// Open files a run keeps besides its keys', with room to spare.
    static let reserved = 64
    /// The fewest open files a run works with: one key held, with its file and its connection.
    static let needed = reserved + 2

    /// The soft open-file limit.
    let limit: Int

    /// The budget under the soft limit, raised to the hard limit first.
    static func current() -> OpenFileBudget {
        OpenFileBudget(limit: ProcessTuning.raiseOpenFileLimit())
    }

    /// Keys that may be held at once; 0 when not even one fits.
    var keys: Int { max(0, (limit - Self.reserved) / 2) }
}
