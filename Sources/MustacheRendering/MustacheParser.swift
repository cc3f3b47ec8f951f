/// Reads Mustache text into nodes, with the spec's whitespace rules: a section, inverted-section,
/// closing, comment or pragma tag alone on its line ("standalone") removes that whole line, indentation
/// and line ending included; every other line keeps its text exactly.
///
/// Known tags: `{{name}}`, `{{{name}}}`, `{{&name}}`, `{{#name}}`, `{{^name}}`, `{{/name}}`, `{{! comment}}`
/// and the pragma `{{% CONTENT_TYPE: TEXT}}` (or `HTML`, the default), which switches HTML escaping of
/// `{{name}}` off (or on) for the rest of the enclosing section or template. Partials, inheritance,
/// set-delimiter tags and lambdas/transforms are not supported: they are reported as errors rather than
/// rendered differently from other Mustache implementations.
struct MustacheParser {
    private let bytes: [UInt8]
    private let template: String
    private var position = 0
    /// Whether `{{name}}` escapes for HTML here (the CONTENT_TYPE pragma in effect).
    private var escapes = true

    init(_ text: String, template: String) {
        bytes = Array(text.utf8)
        self.template = template
    }

    /// The whole template's nodes.
    mutating func parse() throws(MustacheError) -> [MustacheNode] {
        try parseBlock(section: nil, atLineStart: true)
    }

    /// Nodes up to the end of the text (`section == nil`) or up to the tag closing `section`.
    ///
    /// `atLineStart` says whether only spaces or tabs stand between the line's start and `position`:
    /// only then can the next tag be standalone.
    private mutating func parseBlock(
        section: (name: String, tagOffset: Int)?, atLineStart startsLine: Bool
    ) throws(MustacheError) -> [MustacheNode] {
        let outerEscapes = escapes
        defer { escapes = outerEscapes }
        var nodes: [MustacheNode] = []
        var atLineStart = startsLine
        // Spaces and tabs at the start of the line, held back until it is known whether the line is a
        // standalone tag's (then dropped) or not (then written before what follows).
        var indentation = ""
        while position < bytes.count {
            if atLineStart {
                let start = position
                while position < bytes.count, bytes[position] == .space || bytes[position] == .tab { position += 1 }
                indentation = text(start..<position)
            }
            let textStart = position
            var tagFound = false
            while position < bytes.count {
                let byte = bytes[position]
                if byte == .newline || (byte == .carriageReturn && next(is: .newline)) { break }
                if byte == .openBrace && next(is: .openBrace) {
                    tagFound = true
                    break
                }
                position += 1
            }
            let plain = text(textStart..<position)
            if !tagFound && position < bytes.count {
                let lineEnd = bytes[position] == .carriageReturn ? 2 : 1
                nodes.append(.text(indentation + plain + text(position..<position + lineEnd)))
                position += lineEnd
                atLineStart = true
                continue
            }
            if !plain.isEmpty {
                nodes.append(.text(indentation + plain))
                indentation = ""
                atLineStart = false
            }
            guard tagFound else { break }

            let tagOffset = position
            position += 2
            guard position < bytes.count else { throw error("'{{' opens a tag that is not closed", at: tagOffset) }
            var standalone = false
            switch bytes[position] {
            case .hash, .caret:
                let inverted = bytes[position] == .caret
                position += 1
                let name = try readName(tagOffset: tagOffset)
                standalone = atLineStart && finishesLine()
                if !standalone && !indentation.isEmpty {
                    nodes.append(.text(indentation))
                    indentation = ""
                }
                let body = try parseBlock(section: (name, tagOffset), atLineStart: standalone)
                nodes.append(.section(name: name, inverted: inverted, body: body))
            case .slash:
                position += 1
                let name = try readName(tagOffset: tagOffset)
                guard let section else {
                    throw error("'{{/\(name)}}' closes no open section", at: tagOffset)
                }
                guard name == section.name else {
                    let (line, _) = lineAndColumn(of: section.tagOffset)
                    throw error(
                        "'{{/\(name)}}' does not close the open section '{{#\(section.name)}}' of line \(line)",
                        at: tagOffset)
                }
                if !(atLineStart && finishesLine()) && !indentation.isEmpty {
                    nodes.append(.text(indentation))
                }
                return nodes
            case .exclamation:
                guard let end = find(.closeBrace, .closeBrace, from: position) else {
                    throw error("comment '{{!' is not closed with '}}'", at: tagOffset)
                }
                position = end + 2
                standalone = atLineStart && finishesLine()
            case .percent:
                position += 1
                try readPragma(tagOffset: tagOffset)
                standalone = atLineStart && finishesLine()
            case .openBrace, .ampersand:
                let tripleBrace = bytes[position] == .openBrace
                position += 1
                if !indentation.isEmpty {
                    nodes.append(.text(indentation))
                    indentation = ""
                }
                let name = try readName(tagOffset: tagOffset)
                if tripleBrace {
                    guard position < bytes.count, bytes[position] == .closeBrace else {
                        throw error("'{{{\(name)' must end with '}}}'", at: tagOffset)
                    }
                    position += 1
                }
                nodes.append(.variable(name: name, escaped: false))
            case .greaterThan, .lessThan:
                throw error("partials ('{{>' and '{{<') are not supported", at: tagOffset)
            case .dollar:
                throw error("blocks ('{{$') are not supported", at: tagOffset)
            case .equals:
                throw error("changing the delimiters ('{{=') is not supported", at: tagOffset)
            default:
                if !indentation.isEmpty {
                    nodes.append(.text(indentation))
                    indentation = ""
                }
                let name = try readName(tagOffset: tagOffset)
                nodes.append(.variable(name: name, escaped: escapes))
            }
            atLineStart = standalone
        }
        if let section {
            throw error("section '{{#\(section.name)}}' is not closed", at: section.tagOffset)
        }
        return nodes
    }

    /// A tag's name and its closing `}}`, with whitespace allowed around the name.
    private mutating func readName(tagOffset: Int) throws(MustacheError) -> String {
        skipWhitespace()
        let start = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        let name = text(start..<position)
        skipWhitespace()
        guard bytes.count - position >= 2, bytes[position] == .closeBrace, bytes[position + 1] == .closeBrace else {
            if position < bytes.count, bytes[position] == .openParenthesis {
                throw error("transforms ('name(…)') are not supported", at: position)
            }
            throw error("tag must end with '}}' after its name", at: position < bytes.count ? position : tagOffset)
        }
        guard !name.isEmpty else { throw error("tag has no name", at: tagOffset) }
        position += 2
        return name
    }

    /// `{{% CONTENT_TYPE: TEXT}}` or `{{% CONTENT_TYPE: HTML}}`, after the `%`.
    private mutating func readPragma(tagOffset: Int) throws(MustacheError) {
        skipWhitespace()
        let keyStart = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        let key = text(keyStart..<position)
        skipWhitespace()
        guard position < bytes.count, bytes[position] == .colon else {
            throw error("pragma must read '{{% CONTENT_TYPE: TEXT}}'", at: tagOffset)
        }
        position += 1
        skipWhitespace()
        let valueStart = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        let value = text(valueStart..<position)
        skipWhitespace()
        guard bytes.count - position >= 2, bytes[position] == .closeBrace, bytes[position + 1] == .closeBrace else {
            throw error("pragma must end with '}}'", at: tagOffset)
        }
        position += 2
        guard key == "CONTENT_TYPE" else { throw error("unknown pragma '\(key)'", at: tagOffset) }
        switch value {
        case "TEXT": escapes = false
        case "HTML": escapes = true
        default: throw error("unknown content type '\(value)' (TEXT or HTML)", at: tagOffset)
        }
    }

    /// When only spaces or tabs remain on the line: moves past them and the line ending, and returns true.
    /// The end of the text also finishes the line.
    private mutating func finishesLine() -> Bool {
        var index = position
        while index < bytes.count, bytes[index] == .space || bytes[index] == .tab { index += 1 }
        if index == bytes.count {
            position = index
            return true
        }
        if bytes[index] == .newline {
            position = index + 1
            return true
        }
        if bytes[index] == .carriageReturn, index + 1 < bytes.count, bytes[index + 1] == .newline {
            position = index + 2
            return true
        }
        return false
    }

    private mutating func skipWhitespace() {
        while position < bytes.count,
            bytes[position] == .space || bytes[position] == .tab || bytes[position] == .newline
                || bytes[position] == .carriageReturn
        {
            position += 1
        }
    }

    private func next(is byte: UInt8) -> Bool {
        position + 1 < bytes.count && bytes[position + 1] == byte
    }

    private func find(_ first: UInt8, _ second: UInt8, from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == first && bytes[index + 1] == second { return index }
            index += 1
        }
        return nil
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"),
            UInt8(ascii: "?"), UInt8(ascii: "*"):
            true
        default: false
        }
    }

    /// 1-based line and column (in bytes) of `offset`.
    private func lineAndColumn(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == .newline {
            line += 1
            lineStart = index + 1
        }
        return (line, offset - lineStart + 1)
    }

    private func error(_ message: String, at offset: Int) -> MustacheError {
        let (line, column) = lineAndColumn(of: offset)
        return MustacheError(template: template, line: line, column: column, message: message)
    }
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let newline = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openParenthesis = UInt8(ascii: "(")
    fileprivate static let hash = UInt8(ascii: "#")
    fileprivate static let caret = UInt8(ascii: "^")
    fileprivate static let slash = UInt8(ascii: "/")
    fileprivate static let exclamation = UInt8(ascii: "!")
    fileprivate static let percent = UInt8(ascii: "%")
    fileprivate static let ampersand = UInt8(ascii: "&")
    fileprivate static let greaterThan = UInt8(ascii: ">")
    fileprivate static let lessThan = UInt8(ascii: "<")
    fileprivate static let dollar = UInt8(ascii: "$")
    fileprivate static let equals = UInt8(ascii: "=")
    fileprivate static let colon = UInt8(ascii: ":")
}
