extension String {
    /// The text a C function wrote into `buffer`: its UTF-8 bytes up to the first NUL (all of them when
    /// there is none), invalid sequences repaired.
    init(cBuffer buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
