/// `text` as it may be shown inside one line of a message: every control character (C0, DEL, C1)
/// written as a `\u{..}` escape, so a value from a job file or a server can neither end the line and
/// forge another nor send the terminal an escape sequence. Text without one comes back unchanged.
package func oneLine(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    return text.unicodeScalars.map { isControl($0) ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}
