internal import CYAML

/// A problem that stops YAML parsing: libyaml's own text, or a refused limit, at a place in the file.
struct YAMLProblem: Error, Sendable {
    var message: String
    var mark: YAMLMark
}

/// Owns one libyaml parser and the bytes it reads, and turns its events into a `YAMLNode` tree.
///
/// The parser and the input buffer are freed in `deinit`; neither pointer leaves this type.
final class YAMLReader {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>
    /// The bytes of `input` that are the document (it holds one even for an empty one).
    private let inputCount: Int
    private let limits: YAMLLimits
    private var aliasCount = 0
    private var nodeCount = 0
    private var anchors: [String: YAMLNode] = [:]

    /// Prepares a parser over a copy of `bytes`.
    init(bytes: [UInt8], limits: YAMLLimits = .standard) throws(YAMLProblem) {
        self.limits = limits
        guard bytes.count <= limits.maxBytes else {
            throw YAMLProblem(
                message: "the document is \(bytes.count) bytes, over the limit of \(limits.maxBytes) bytes",
                mark: YAMLMark(line: 1, column: 1))
        }
        // Set up in locals first: once every stored property is set, a throw runs `deinit`, which
        // would free them a second time.
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        guard yaml_parser_initialize(parser) == 1 else {
            parser.deallocate()
            throw YAMLProblem(message: "libyaml could not allocate a parser", mark: YAMLMark(line: 1, column: 1))
        }
        let input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
        self.parser = parser
        self.input = input
        inputCount = bytes.count
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

    /// Reads the single document of the stream; an empty stream yields nil.
    func readDocument() throws(YAMLProblem) -> YAMLNode? {
        var stack: [Frame] = []
        var root: YAMLNode?
        var documents = 0
        while true {
            let event = try nextEvent()
            switch event.kind {
            case .streamEnd:
                return root
            case .streamStart, .documentEnd:
                continue
            case .documentStart:
                documents += 1
                if documents > 1 {
                    throw YAMLProblem(message: "a job file holds one YAML document, found a second", mark: event.mark)
                }
            case .alias(let name):
                aliasCount += 1
                guard aliasCount <= limits.maxAliases else {
                    throw YAMLProblem(
                        message: "more than \(limits.maxAliases) aliases; refusing a possible alias bomb",
                        mark: event.mark)
                }
                guard var node = anchors[name] else {
                    throw YAMLProblem(message: "alias *\(name) names no anchor defined before it", mark: event.mark)
                }
                node.mark = event.mark
                try count(node.size, at: event.mark)
                attach(node, to: &stack, root: &root)
            case .scalar(let text, let plain, let anchor):
                try count(1, at: event.mark)
                let node = YAMLNode(content: .scalar(text, plain: plain), mark: event.mark, size: 1)
                remember(node, as: anchor)
                attach(node, to: &stack, root: &root)
            case .sequenceStart(let anchor):
                try count(1, at: event.mark)
                try nest(&stack, Frame(mark: event.mark, anchor: anchor, isMapping: false))
            case .mappingStart(let anchor):
                try count(1, at: event.mark)
                try nest(&stack, Frame(mark: event.mark, anchor: anchor, isMapping: true))
            case .collectionEnd:
                let frame = stack.removeLast()
                let node = frame.node
                remember(node, as: frame.anchor)
                attach(node, to: &stack, root: &root)
            }
        }
    }

    private func count(_ nodes: Int, at mark: YAMLMark) throws(YAMLProblem) {
        nodeCount += nodes
        guard nodeCount <= limits.maxNodes else {
            throw YAMLProblem(message: "more than \(limits.maxNodes) nodes; refusing an oversized document", mark: mark)
        }
    }

    private func nest(_ stack: inout [Frame], _ frame: Frame) throws(YAMLProblem) {
        guard stack.count < limits.maxDepth else {
            throw YAMLProblem(
                message: "collections nested more than \(limits.maxDepth) deep; refusing an oversized document",
                mark: frame.mark)
        }
        stack.append(frame)
    }

    private func remember(_ node: YAMLNode, as anchor: String?) {
        if let anchor { anchors[anchor] = node }
    }

    private func attach(_ node: YAMLNode, to stack: inout [Frame], root: inout YAMLNode?) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        stack[stack.count - 1].add(node)
    }

    private func nextEvent() throws(YAMLProblem) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else {
            throw parserProblem()
        }
        defer { yaml_event_delete(&event) }
        return Event(event)
    }

    /// libyaml's problem text, with its context when it gives one, at the problem's mark.
    private func parserProblem() -> YAMLProblem {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unknown YAML error"
        let context = state.context.map { String(cString: $0) }
        var message = context.map { "\($0): \(problem)" } ?? problem
        // A reader error (bytes that are not UTF-8, a control character) has no mark, only the offset
        // of the byte it stopped at.
        let isReaderError = state.error == YAML_READER_ERROR
        if isReaderError, state.problem_value >= 0 {
            let hex = String(UInt8(truncatingIfNeeded: state.problem_value), radix: 16, uppercase: true)
            message += " (byte 0x" + (hex.count == 1 ? "0" : "") + hex + ")"
        }
        let mark = isReaderError ? mark(atByte: Int(state.problem_offset))
            : YAMLMark(line: Int(state.problem_mark.line) + 1, column: Int(state.problem_mark.column) + 1)
        // `{` and `}` end a plain value inside `{ }` or `[ ]`, and `${VAR}` holds both.
        if context?.hasPrefix("while parsing a flow") == true, text(ofLine: mark.line).contains("${") {
            message += "; inside { } or [ ], quote a value that holds ${VAR}: \"${VAR}\""
        }
        return YAMLProblem(message: message, mark: mark)
    }

    /// The line and column (in characters, both 1-based) of the input's byte at `offset`.
    private func mark(atByte offset: Int) -> YAMLMark {
        var line = 1
        var column = 1
        for byte in input[0..<min(max(offset, 0), inputCount)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return YAMLMark(line: line, column: column)
    }

    /// The text of the input's line `number` (1-based), empty past its end.
    private func text(ofLine number: Int) -> String {
        var line = 1
        var start = 0
        for index in 0..<inputCount where input[index] == UInt8(ascii: "\n") {
            if line == number { return String(decoding: input[start..<index], as: UTF8.self) }
            line += 1
            start = index + 1
        }
        return line == number ? String(decoding: input[start..<inputCount], as: UTF8.self) : ""
    }
}

@available(*, unavailable)
extension YAMLReader: Sendable {}

extension YAMLReader {
    /// A collection being built: its children so far.
    fileprivate struct Frame {
        var mark: YAMLMark
        var anchor: String?
        var isMapping: Bool
        var items: [YAMLNode] = []
        var size = 1

        mutating func add(_ node: YAMLNode) {
            items.append(node)
            size += node.size
        }

        var node: YAMLNode {
            guard isMapping else {
                return YAMLNode(content: .sequence(items), mark: mark, size: size)
            }
            let pairs = stride(from: 0, to: items.count - 1, by: 2).map { YAMLPair(key: items[$0], value: items[$0 + 1]) }
            return YAMLNode(content: .mapping(pairs), mark: mark, size: size)
        }
    }

    /// The parts of a libyaml event this reader uses, copied out before the event is deleted.
    fileprivate struct Event {
        enum Kind {
            case streamStart, streamEnd, documentStart, documentEnd
            case alias(String)
            case scalar(String, plain: Bool, anchor: String?)
            case sequenceStart(anchor: String?)
            case mappingStart(anchor: String?)
            case collectionEnd
        }

        var kind: Kind
        var mark: YAMLMark

        init(_ event: yaml_event_t) {
            mark = YAMLMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
            switch event.type {
            case YAML_STREAM_START_EVENT: kind = .streamStart
            case YAML_DOCUMENT_START_EVENT: kind = .documentStart
            case YAML_DOCUMENT_END_EVENT: kind = .documentEnd
            case YAML_ALIAS_EVENT: kind = .alias(Self.text(event.data.alias.anchor))
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let value = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                kind = .scalar(
                    value, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE, anchor: Self.optionalText(scalar.anchor))
            case YAML_SEQUENCE_START_EVENT: kind = .sequenceStart(anchor: Self.optionalText(event.data.sequence_start.anchor))
            case YAML_MAPPING_START_EVENT: kind = .mappingStart(anchor: Self.optionalText(event.data.mapping_start.anchor))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT: kind = .collectionEnd
            default: kind = .streamEnd
            }
        }

        private static func optionalText(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            pointer.map { text($0) }
        }

        private static func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String {
            guard let pointer else { return "" }
            return String(cString: pointer)
        }
    }
}
