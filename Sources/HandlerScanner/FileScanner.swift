/// The single lexical pass over one file: tracks braces (type bodies versus code bodies), the enclosing
/// type path, `#if` branches and access levels, and hands every `@handler` to `DeclarationParser`.
struct FileScanner {
    /// What a `{ … }` opened.
    private struct Scope {
        enum Kind { case file, type, code }
        var kind: Kind
        /// The dotted type path as written, for type bodies.
        var path: String?
        var isProtocol = false
        /// Inside a function, closure or accessor body (possibly through a local type).
        var isLocal = false
        /// The type or extension (or an enclosing one) is `private`/`fileprivate`.
        var isPrivate = false
        /// The type (or an enclosing one) has generic parameters: `struct Box<T>`.
        var isGeneric = false
        /// The `(`/`[` nesting when the brace opened, restored when it closes.
        var savedNesting = 0
        /// Byte offset of the `{`.
        var openOffset = 0
    }

    /// A type declaration whose header has been seen but whose `{` has not.
    private struct PendingType {
        var keyword: Keyword
        var name: String?
        var nesting: Int
        var isPrivate: Bool
        var isGeneric = false
        /// For extensions: the target's bytes as written, whitespace removed.
        var target: [UInt8] = []
        var collectingTarget = false
        var lastTargetTokenWasWord = false
    }

    /// One `#if … #endif` block being inside.
    private struct ConditionalBlock {
        var current: HandlerDeclaration.Condition
        var earlier: [String]
        var scopesAtIf: [Scope]
        var nestingAtIf: Int
    }

    private let file: String
    private let lines: LineTable
    private var lexer: Lexer
    private var scopes: [Scope] = [Scope(kind: .file)]
    private var nesting = 0
    private var pending: PendingType?
    private var sawPrivate = false
    private var blocks: [ConditionalBlock] = []
    private var handledUntil = 0
    /// The previous token was a `.`: a keyword after it is a member name (`.init`, `.class`).
    private var afterDot = false

    private(set) var handlers: [HandlerDeclaration] = []
    private(set) var imports: [ImportDeclaration] = []
    /// An `@testable` attribute was seen and not yet used by an `import`.
    private var sawTestable = false
    /// After `run()`: braces still open and `#if` blocks not closed (both 0 for well-formed source).
    var openScopes: Int { scopes.count - 1 }
    var openConditionalBlocks: Int { blocks.count }
    /// Byte offsets of the braces still open (for diagnosing the scanner itself).
    var openScopeOffsets: [Int] { scopes.dropFirst().map(\.openOffset) }
    private(set) var diagnostics: [ScanDiagnostic] = []

    init(bytes: UnsafeBufferPointer<UInt8>, file: String, lines: LineTable) {
        self.file = file
        self.lines = lines
        self.lexer = Lexer(bytes: bytes)
    }

    /// Runs the pass over the whole file.
    mutating func run() {
        while true {
            let token = lexer.next()
            defer { afterDot = token.kind == .dot }
            switch token.kind {
            case .endOfFile:
                return
            case .identifier:
                identifier(token)
            case .leftBrace:
                openBrace(at: token.start)
            case .rightBrace:
                closeBrace()
            case .leftParen, .leftBracket:
                appendToTarget(token)
                nesting += 1
            case .rightParen, .rightBracket:
                appendToTarget(token)
                if nesting > 0 { nesting -= 1 }
            case .colon:
                if pending?.collectingTarget == true, pending?.nesting == nesting { pending?.collectingTarget = false }
            case .semicolon:
                pending = nil
                sawPrivate = false
            case .at:
                attribute(token)
            case .pound:
                directive(token)
            default:
                appendToTarget(token)
            }
        }
    }

    // MARK: Declarations and scopes

    @inline(__always)
    private mutating func identifier(_ token: Token) {
        if pending != nil {
            if pending?.collectingTarget == true {
                if lexer.token(token, is: "where") {
                    pending?.collectingTarget = false
                } else {
                    appendToTarget(token)
                }
                return
            }
            if pending?.name == nil {
                pending?.name = lexer.text(token)
                var lookahead = lexer
                let following = lookahead.next()
                if following.kind == .op, lexer.bytes[following.start] == UInt8(ascii: "<") { pending?.isGeneric = true }
                return
            }
        }
        guard !afterDot, let keyword = Keywords.classify(lexer.bytes, token.start, token.end) else { return }
        switch keyword {
        case .struct, .enum, .protocol:
            pending = PendingType(keyword: keyword, nesting: nesting, isPrivate: sawPrivate)
        case .class, .actor:
            // `class func`, `class var`: a modifier. `actor` is contextual: `actor Name` only.
            var lookahead = lexer
            let following = lookahead.next()
            guard following.kind == .identifier else { return }
            if keyword == .actor, following.newlineBefore { return }
            let word = lexer.text(following)
            if Keywords.modifiers.contains(word) || Keywords.introducers.contains(word) { return }
            pending = PendingType(keyword: keyword, nesting: nesting, isPrivate: sawPrivate)
        case .extension:
            pending = PendingType(
                keyword: keyword, name: "", nesting: nesting, isPrivate: sawPrivate, collectingTarget: true)
        case .private, .fileprivate:
            var lookahead = lexer
            if lookahead.next().kind != .leftParen { sawPrivate = true }  // not `private(set)`
        case .let, .var:
            // Not the end of a type header: `struct Vector<let count: Int>` (value generics).
            sawPrivate = false
        case .import:
            pending = nil
            sawPrivate = false
            if scopes.count == 1, nesting == 0 { importDeclaration() }
            sawTestable = false
        default:
            pending = nil
            sawPrivate = false
        }
    }

    /// `import Module`, `import kind Module.Symbol`: records the module with the current `#if` branches.
    private mutating func importDeclaration() {
        var name = lexer.next()
        guard name.kind == .identifier, !name.newlineBefore else { return }
        if let kind = Keywords.classify(lexer.bytes, name.start, name.end),
           [.struct, .class, .enum, .protocol, .typealias, .func, .let, .var].contains(kind) {
            name = lexer.next()
            guard name.kind == .identifier, !name.newlineBefore else { return }
        }
        imports.append(ImportDeclaration(
            file: file, module: lexer.text(name).replacingBackticks(),
            isTestable: sawTestable, conditions: blocks.map(\.current)))
    }

    private mutating func appendToTarget(_ token: Token) {
        guard pending?.collectingTarget == true else { return }
        let isWord = token.kind == .identifier || token.kind == .number
        if pending?.lastTargetTokenWasWord == true, isWord { pending?.target.append(0x20) }
        pending?.target.append(contentsOf: lexer.bytes[token.start..<token.end])
        pending?.lastTargetTokenWasWord = isWord
    }

    private mutating func openBrace(at offset: Int) {
        let parent = scopes[scopes.count - 1]
        let isLocal = parent.isLocal || parent.kind == .code
        if let type = pending, type.nesting == nesting, let name = type.name {
            var path: String
            if type.keyword == .extension {
                path = String(decoding: type.target, as: UTF8.self)
            } else if parent.kind == .type, let parentPath = parent.path {
                path = parentPath + "." + name
            } else {
                path = name
            }
            if path.isEmpty { path = "_" }
            scopes.append(
                Scope(
                    kind: .type, path: path, isProtocol: type.keyword == .protocol, isLocal: isLocal,
                    isPrivate: type.isPrivate || parent.isPrivate, isGeneric: type.isGeneric || parent.isGeneric,
                    savedNesting: nesting, openOffset: offset))
        } else {
            scopes.append(
                Scope(kind: .code, isLocal: true, isPrivate: parent.isPrivate, savedNesting: nesting, openOffset: offset))
        }
        pending = nil
        sawPrivate = false
        nesting = 0
    }

    private mutating func closeBrace() {
        if scopes.count > 1 {
            nesting = scopes[scopes.count - 1].savedNesting
            scopes.removeLast()
        }
        pending = nil
        sawPrivate = false
    }

    // MARK: Conditional compilation

    private mutating func directive(_ token: Token) {
        if lexer.token(token, is: "#if") {
            let condition = conditionText()
            blocks.append(
                ConditionalBlock(
                    current: .init(branch: .if, expression: condition, precedingExpressions: []), earlier: [],
                    scopesAtIf: scopes, nestingAtIf: nesting))
        } else if lexer.token(token, is: "#elseif") || lexer.token(token, is: "#else") {
            let isElse = lexer.token(token, is: "#else")
            let condition = isElse ? "" : conditionText()
            guard var block = blocks.popLast() else { return }
            block.earlier.append(block.current.expression)
            block.current = .init(
                branch: isElse ? .else : .elseif, expression: condition, precedingExpressions: block.earlier)
            // Each branch starts from the braces open at `#if` (branches that open the same brace, such as
            // two alternative `extension X: P {` lines, then stay balanced).
            if scopes.count != block.scopesAtIf.count {
                scopes = block.scopesAtIf
                nesting = block.nestingAtIf
            }
            blocks.append(block)
        } else if lexer.token(token, is: "#endif") {
            _ = blocks.popLast()
        }
    }

    /// The rest of the directive's line: the condition as written (comments after it excluded).
    private mutating func conditionText() -> String {
        var end = -1
        var start = -1
        while true {
            var lookahead = lexer
            let token = lookahead.next()
            if token.kind == .endOfFile || token.newlineBefore { break }
            if start < 0 { start = token.start }
            end = token.end
            lexer = lookahead
        }
        guard start >= 0 else { return "" }
        return lexer.text(from: start, to: end)
    }

    // MARK: Attributes

    private mutating func attribute(_ at: Token) {
        guard at.start >= handledUntil else { return }
        var lookahead = lexer
        var name = lookahead.next()
        guard name.kind == .identifier, name.start == at.end else { return }
        if lookahead.token(name, is: "testable") {
            sawTestable = true
            return
        }
        if lookahead.token(name, is: "HandlerKit") {
            // Module-qualified: `@HandlerKit.handler`.
            let dot = lookahead.next()
            guard dot.kind == .dot else { return }
            name = lookahead.next()
        }
        guard name.kind == .identifier, lookahead.token(name, is: "handler") else { return }

        let scope = scopes[scopes.count - 1]
        let context: DeclarationContext
        switch scope.kind {
        case .file: context = .fileScope
        case .code: context = .local
        case .type: context = scope.isLocal ? .local : .type(path: scope.path ?? "_", isProtocol: scope.isProtocol)
        }
        let site = HandlerSite(
            context: context, inPrivateScope: scope.kind == .type && scope.isPrivate,
            inGenericType: scope.kind == .type && scope.isGeneric, conditions: blocks.map(\.current))
        var parser = DeclarationParser(lexer: lookahead, lines: lines, file: file)
        let parsed = parser.parse(attributeStart: at.start, handlerEnd: name.end, site: site)
        handledUntil = parsed.headerEnd
        if let declaration = parsed.declaration { handlers.append(declaration) }
        diagnostics.append(contentsOf: parsed.diagnostics)
    }
}
