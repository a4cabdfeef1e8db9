import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// The log a command writes on standard error, as its `--log-format` asks: text lines for people, or
/// one JSON object a line for tools. Set once as the command starts; every line of the process's log
/// goes through here, so the two formats never mix.
///
/// Text lines start with the time (`Timestamp`) when standard error is neither a terminal nor the
/// systemd journal, which stamps lines itself: a cron log needs the time, a person at a terminal does
/// not. Each JSON line carries `event`, `time` and `format_version`; the last one a command writes is
/// its `summary` (`Log+Events.swift`).
package enum Log {
    package enum Format: String, Sendable { case text, json }
    package enum Level: String, Sendable, Encodable { case warning, error }

    private struct Setting {
        var format = Format.text
        var stamped = false
        var started = Date()
    }

    private static let setting = Locked(Setting())

    /// The format of the process's log, and whether its text lines are stamped; the command's clock
    /// (the summary's `duration_ms`) starts here.
    package static func configure(format: Format, stamped: Bool = stampsStandardError()) {
        setting.withLock { $0 = Setting(format: format, stamped: stamped, started: Date()) }
    }

    package static var format: Format { setting.withLock { $0.format } }

    /// When the command started, as `configure` was called.
    static var started: Date { setting.withLock { $0.started } }

    /// Whether text lines written to standard error now should start with the time: not on a terminal,
    /// nor on the stream systemd gave the process to its journal (`JOURNAL_STREAM` names its device and
    /// inode).
    package static func stampsStandardError(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        if isatty(STDERR_FILENO) == 1 { return false }
        if let stream = environment["JOURNAL_STREAM"] {
            var status = stat()
            if fstat(STDERR_FILENO, &status) == 0, stream == "\(status.st_dev):\(status.st_ino)" { return false }
        }
        return true
    }

    /// `text`, one line or several (a final newline is not needed), for people: written in the text
    /// format only.
    package static func text(_ text: String) {
        let (format, stamped) = setting.withLock { ($0.format, $0.stamped) }
        guard format == .text else { return }
        let lines = text.hasSuffix("\n") ? String(text.dropLast()) : text
        Console.error(stamped ? stamp(lines, at: Date()) : lines + "\n")
    }

    /// Something to say at `level`: as it is in the text format, as one `message` event a line in JSON.
    package static func message(_ level: Level, _ text: String) {
        guard format == .json else { return Self.text(text) }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            event(MessageEvent(level: level, message: String(line)))
        }
    }

    /// A JSON event: written in the JSON format only.
    package static func event(_ fields: some Encodable, at time: Date = Date()) {
        guard format == .json else { return }
        Console.error(jsonLine(fields, at: time))
    }

    /// `text` in the text format, `event` in JSON: the same news for people or for tools.
    package static func say(_ text: String, or event: some Encodable) {
        if format == .json { Self.event(event) } else { Self.text(text) }
    }

    /// Each line of `text` after the time and a space, newline included.
    static func stamp(_ text: String, at time: Date) -> String {
        let prefix = Timestamp.iso8601(time) + " "
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 + "\n" }.joined()
    }

    /// `fields` as one line of JSON with `time` and `format_version` added, keys sorted, newline
    /// included.
    package static func jsonLine(_ fields: some Encodable, at time: Date) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers and objects of them always encode.
        guard let data = try? encoder.encode(Line(fields: fields, time: time)) else { return "" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// What every JSON line carries besides the event's own fields.
    private struct Line<Fields: Encodable>: Encodable {
        let fields: Fields
        let time: Date

        enum Key: String, CodingKey {
            case time
            case formatVersion = "format_version"
        }

        func encode(to encoder: any Encoder) throws {
            try fields.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(Timestamp.iso8601(time), forKey: .time)
            try container.encode(PrefetchVersion.machineFormat, forKey: .formatVersion)
        }
    }
}
