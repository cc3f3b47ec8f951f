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
        /// The most a member can be seen: the lowest access level written on this declaration and the
        /// enclosing ones (`public` where none is written on an extension).
        var accessCap = HandlerDeclaration.AccessLevel.public
        /// A member's access level when it has no modifier: an extension's own modifier, else `internal`.
        var memberAccess = HandlerDeclaration.AccessLevel.internal
        /// The global actor attribute written on this type or extension (`MainActor`), if any.
        var globalActor: String?
        /// The `(`/`[` nesting when the brace opened, restored when it closes.
        var savedNesting = 0
        /// Byte offset of the `{`.
        var openOffset = 0
    }

    /// A type declaration whose header has been seen but whose `{` has not.
    private struct PendingType {
        var keyword: Keyword
        var name: String?
        /// Where `name` is written (`nil` for an extension).
        var nameRange: Range<Int>?
        var nesting: Int
        var isPrivate: Bool
        var isGeneric = false
        /// The access modifier written before the keyword, if any.
        var access: HandlerDeclaration.AccessLevel?
        /// The global actor attribute written before it, if any.
        var globalActor: String?
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
    /// The access modifier just seen, for the declaration that follows.
    private var sawAccess: HandlerDeclaration.AccessLevel?
    /// A global actor attribute (`@MainActor`) just seen, for the declaration that follows; cleared when
    /// a declaration starts, and by `->` (so `var f: @MainActor () -> Void` does not count).
    private var sawGlobalActor: String?
    /// Names this file declares `private` or `fileprivate` (or inside a private type or extension):
    /// generated code, in another file, cannot name them. Kept as the byte ranges of the name tokens:
    /// most files declare many and have no handler default to check them against, so the names are
    /// made into strings only when one is (`markDefaultsNamingPrivateSymbols`).
    private var privateNameRanges: [Range<Int>] = []
    private var blocks: [ConditionalBlock] = []
    private var handledUntil = 0
    /// The previous token was a `.`: a keyword after it is a member name (`.init`, `.class`).
    private var afterDot = false

    private(set) var handlers: [HandlerDeclaration] = []
    private(set) var imports: [ImportDeclaration] = []
    /// The names of the types this file declares (not extensions), nested ones by their own name.
    private(set) var declaredTypeNames: Set<String> = []
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
                markDefaultsNamingPrivateSymbols()
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
                endModifiers()
            case .at:
                attribute(token)
            case .pound:
                directive(token)
            case .op:
                if sawGlobalActor != nil, lexer.bytesEqual(token.start, token.end, "->") { sawGlobalActor = nil }
                appendToTarget(token)
            default:
                appendToTarget(token)
            }
        }
    }

    // MARK: Declarations and scopes

    /// Forgets the modifiers and attributes seen: the declaration they belong to has started.
    @inline(__always)
    private mutating func endModifiers() {
        sawPrivate = false
        sawAccess = nil
        sawGlobalActor = nil
    }

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
                pending?.nameRange = token.start..<token.end
                var lookahead = lexer
                let following = lookahead.next()
                if following.kind == .op, lexer.bytes[following.start] == UInt8(ascii: "<") {
                    pending?.isGeneric = true
                }
                return
            }
        }
        guard !afterDot, let keyword = Keywords.classify(lexer.bytes, token.start, token.end) else { return }
        switch keyword {
        case .struct, .enum, .protocol:
            pending = PendingType(
                keyword: keyword, nesting: nesting, isPrivate: sawPrivate, access: sawAccess,
                globalActor: sawGlobalActor)
        case .class, .actor:
            // `class func`, `class var`: a modifier. `actor` is contextual: `actor Name` only.
            var lookahead = lexer
            let following = lookahead.next()
            guard following.kind == .identifier else { return }
            if keyword == .actor, following.newlineBefore { return }
            let word = lexer.text(following)
            if Keywords.modifiers.contains(word) || Keywords.introducers.contains(word) { return }
            pending = PendingType(
                keyword: keyword, nesting: nesting, isPrivate: sawPrivate, access: sawAccess,
                globalActor: sawGlobalActor)
        case .extension:
            pending = PendingType(
                keyword: keyword, name: "", nesting: nesting, isPrivate: sawPrivate, access: sawAccess,
                globalActor: sawGlobalActor, collectingTarget: true)
        case .private, .fileprivate, .internal, .package, .public, .open:
            // A modifier only before another word or an attribute: not `private(set)`, `open(path)` or
            // `package = …`.
            var lookahead = lexer
            let following = lookahead.next().kind
            guard following == .identifier || following == .at else { return }
            if keyword == .private || keyword == .fileprivate { sawPrivate = true }
            sawAccess = Self.accessLevel(of: keyword)
        case .let, .var:
            // Not the end of a type header: `struct Vector<let count: Int>` (value generics).
            recordPrivateName()
            endModifiers()
        case .import:
            pending = nil
            endModifiers()
            if scopes.count == 1, nesting == 0 { importDeclaration() }
            sawTestable = false
        case .func:
            recordPrivateName()
            pending = nil
            endModifiers()
        case .typealias:
            recordPrivateName()
            pending = nil
            endModifiers()
            var lookahead = lexer
            let following = lookahead.next()
            if following.kind == .identifier { declaredTypeNames.insert(lexer.text(following).replacingBackticks()) }
        default:
            pending = nil
            endModifiers()
        }
    }

    /// The access level an access keyword names (`open` → `public`), without making a `String`: most
    /// declarations of a library start with one.
    private static func accessLevel(of keyword: Keyword) -> HandlerDeclaration.AccessLevel? {
        switch keyword {
        case .private: .private
        case .fileprivate: .fileprivate
        case .internal: .internal
        case .package: .package
        case .public, .open: .public
        default: nil
        }
    }

    /// Whether a declaration starting here is private: written so, or in a private type or extension.
    private var declaresPrivately: Bool {
        sawPrivate || scopes[scopes.count - 1].isPrivate
    }

    /// After `let`, `var`, `func` or `typealias`: records the declared name if the declaration is private.
    private mutating func recordPrivateName() {
        guard declaresPrivately else { return }
        var lookahead = lexer
        let name = lookahead.next()
        if name.kind == .identifier { privateNameRanges.append(name.start..<name.end) }
    }

    /// Marks the parameters of this file's handlers whose default value names a private symbol of the
    /// file: generated code lets Swift apply those defaults (see
    /// `HandlerDeclaration.Parameter.isDefaultCopyable`).
    private mutating func markDefaultsNamingPrivateSymbols() {
        guard !privateNameRanges.isEmpty,
            handlers.contains(where: { $0.parameters.contains { $0.hasDefault && $0.defaultValue != nil } })
        else { return }
        let privateNames = Set(
            privateNameRanges.map { lexer.text(from: $0.lowerBound, to: $0.upperBound).replacingBackticks() })
        for handlerIndex in handlers.indices {
            for parameterIndex in handlers[handlerIndex].parameters.indices {
                let parameter = handlers[handlerIndex].parameters[parameterIndex]
                guard parameter.hasDefault, let value = parameter.defaultValue else { continue }
                if !Self.words(in: value).isDisjoint(with: privateNames) {
                    handlers[handlerIndex].parameters[parameterIndex].isDefaultCopyable = false
                }
            }
        }
    }

    /// The identifier-like words of `text` (letters, digits and `_`, backticks dropped), members included.
    static func words(in text: String) -> Set<String> {
        var words: Set<String> = []
        var word = ""
        for character in text + " " {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else {
                if let first = word.first, !first.isNumber { words.insert(word) }
                word = ""
            }
        }
        return words
    }

    /// `import Module`, `import kind Module.Symbol`: records the module with the current `#if` branches.
    private mutating func importDeclaration() {
        var name = lexer.next()
        guard name.kind == .identifier, !name.newlineBefore else { return }
        if let kind = Keywords.classify(lexer.bytes, name.start, name.end),
            [.struct, .class, .enum, .protocol, .typealias, .func, .let, .var].contains(kind)
        {
            name = lexer.next()
            guard name.kind == .identifier, !name.newlineBefore else { return }
        }
        imports.append(
            ImportDeclaration(
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
            let isPrivate = type.isPrivate || parent.isPrivate
            if isPrivate, type.keyword != .extension, let range = type.nameRange { privateNameRanges.append(range) }
            if type.keyword != .extension { declaredTypeNames.insert(name.replacingBackticks()) }
            // Swift: a type's members default to `internal`, an extension's to its own modifier; both
            // are capped by the modifiers written around them (an extension without one caps nothing).
            let isExtension = type.keyword == .extension
            let written = type.access ?? (isExtension ? .public : .internal)
            scopes.append(
                Scope(
                    kind: .type, path: path, isProtocol: type.keyword == .protocol, isLocal: isLocal,
                    isPrivate: isPrivate, isGeneric: type.isGeneric || parent.isGeneric,
                    accessCap: min(written, parent.accessCap),
                    memberAccess: isExtension ? max(type.access ?? .internal, .fileprivate) : .internal,
                    globalActor: type.globalActor, savedNesting: nesting, openOffset: offset))
        } else {
            scopes.append(
                Scope(
                    kind: .code, isLocal: true, isPrivate: parent.isPrivate, savedNesting: nesting, openOffset: offset))
        }
        pending = nil
        endModifiers()
        nesting = 0
    }

    private mutating func closeBrace() {
        if scopes.count > 1 {
            nesting = scopes[scopes.count - 1].savedNesting
            scopes.removeLast()
        }
        pending = nil
        endModifiers()
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
        if let actor = globalActorName(startingAt: name, lookahead) {
            sawGlobalActor = actor
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
        let isType = scope.kind == .type
        let site = HandlerSite(
            context: context, inPrivateScope: isType && scope.isPrivate,
            inGenericType: isType && scope.isGeneric, conditions: blocks.map(\.current),
            accessCap: isType ? scope.accessCap : .public, memberAccess: isType ? scope.memberAccess : .internal,
            scopeGlobalActor: isType ? scope.globalActor : nil, attributeGlobalActor: sawGlobalActor)
        var parser = DeclarationParser(lexer: lookahead, lines: lines, file: file)
        let parsed = parser.parse(attributeStart: at.start, handlerEnd: name.end, site: site)
        handledUntil = parsed.headerEnd
        endModifiers()
        if let declaration = parsed.declaration { handlers.append(declaration) }
        diagnostics.append(contentsOf: parsed.diagnostics)
    }

    /// The attribute's name if it is a global actor: `MainActor`, or a name ending in `Actor`
    /// (`DatabaseActor`, `Storage.DatabaseActor`), but not `globalActor` itself. Compares bytes, so
    /// other attributes cost no `String`.
    private func globalActorName(startingAt name: Token, _ lookahead: Lexer) -> String? {
        var copy = lookahead
        var last = name
        while true {
            var probe = copy
            guard probe.next().kind == .dot else { break }
            let part = probe.next()
            guard part.kind == .identifier else { break }
            last = part
            copy = probe
        }
        guard last.end - last.start > 5, lexer.bytesEqual(last.end - 5, last.end, "Actor"),
            !lexer.bytesEqual(last.start, last.end, "globalActor")
        else { return nil }
        return lexer.text(from: name.start, to: last.end)
    }
}
