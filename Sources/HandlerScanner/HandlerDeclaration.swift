/// A function marked `@handler`, as the lexical scanner found it in a Swift source file.
///
/// This is the model the generator renders and `handlergen scan --format json` prints. Field names
/// follow the public JSON shape of `handlergen scan`.
public struct HandlerDeclaration: Sendable, Hashable, Codable {
    /// How the handler's function is reached.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A `static` or `class` method; called on its type.
        case `static`
        /// An instance method; called on the value of the `instance:` expression.
        case instance
        /// A function at file scope.
        case global
    }

    /// An access level, in increasing order of visibility (`open` counts as `public`: generated
    /// members are not overridable).
    public enum AccessLevel: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
        case `private`, `fileprivate`, `internal`, `package`, `public`

        public static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool {
            lhs.rank < rhs.rank
        }

        private var rank: Int {
            switch self {
            case .private: 0
            case .fileprivate: 1
            case .internal: 2
            case .package: 3
            case .public: 4
            }
        }

        /// The level a modifier word names (`open` → `public`), or `nil` for another word.
        public init?(modifier: String) {
            if modifier == "open" {
                self = .public
            } else {
                self.init(rawValue: modifier)
            }
        }
    }

    /// The source file, as given to the scanner (made relative by the caller where needed).
    public var file: String
    /// 1-based line of the `@handler` attribute.
    public var line: Int
    /// 1-based column (in UTF-8 bytes) of the `@` of the `@handler` attribute.
    public var column: Int
    /// The handler id: the explicit `id:` argument, else `Type.Path.name`, else `name` at file scope.
    public var id: String
    /// Whether `id` was given explicitly with `@handler(id:)`.
    public var hasExplicitID: Bool
    /// The dotted enclosing type path as written (an extension's target as written), `nil` at file scope.
    public var type: String?
    /// The function's base name (backticks removed).
    public var name: String
    public var kind: Kind
    /// The `instance:` expression with string escapes resolved, or `nil`.
    public var instance: String?
    public var isAsync: Bool
    public var isThrows: Bool
    public var parameters: [Parameter]
    /// The `#if` / `#elseif` / `#else` conditions the declaration sits under, outermost first.
    public var conditions: [Condition]
    /// The function's effective access level, as Swift works it out from the declaration: its own
    /// modifier (else the default its extension's modifier gives, else `internal`), capped by the
    /// modifiers of the enclosing type declarations and extension as written (a type without one is
    /// `internal`). The type an extension extends is declared elsewhere and not seen: a `public` method
    /// in `extension InternalType` stays `public` here, which Swift accepts for the generated members
    /// as it does for the method.
    public var access: AccessLevel
    /// The global actor the function is isolated to, as written (`MainActor`, `Storage.DatabaseActor`):
    /// an attribute of the function, else of its enclosing type or extension, unless the function is
    /// `nonisolated`. An attribute counts as a global actor when its name is `MainActor` or ends in
    /// `Actor`. Isolation Swift only infers (from a superclass or a conformance) is not seen.
    public var globalActor: String?
    /// The ids the handler had before, from `@handler(formerly: "Old.id", …)`, as written: documents
    /// stored under one of them rebuild to this handler.
    public var formerIDs: [String] = []

    public init(
        file: String, line: Int, column: Int, id: String, hasExplicitID: Bool, type: String?,
        name: String, kind: Kind, instance: String?, isAsync: Bool, isThrows: Bool,
        parameters: [Parameter], conditions: [Condition],
        access: AccessLevel = .internal, globalActor: String? = nil
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.id = id
        self.hasExplicitID = hasExplicitID
        self.type = type
        self.name = name
        self.kind = kind
        self.instance = instance
        self.isAsync = isAsync
        self.isThrows = isThrows
        self.parameters = parameters
        self.conditions = conditions
        self.access = access
        self.globalActor = globalActor
    }

    /// One parameter of a handler function.
    public struct Parameter: Sendable, Hashable, Codable {
        /// The argument label as written: the first name, `_` when there is none, or the name itself
        /// when only one name is written.
        public var label: String
        /// The internal name: the key of the argument in bound and call-time values.
        public var name: String
        /// The type as written, with all whitespace removed (e.g. `[String:Int]?`).
        public var type: String
        /// `true` for `T?`, `T!` and `Optional<T>`.
        public var isOptional: Bool
        /// `true` when the parameter has a default value.
        public var hasDefault: Bool
        /// The default value's source text (trimmed), or `nil`.
        public var defaultValue: String?
        /// 1-based line of the parameter's name.
        public var line: Int
        /// `false` when generated code, in another file, cannot repeat the default value: it names a
        /// symbol the file declares `private` or `fileprivate` (or declares in a private type or
        /// extension; any word of the value counts, so a false match only costs a longer shim).
        /// Generated code then omits the argument, so Swift applies the default itself.
        public var isDefaultCopyable: Bool
        /// The names the parameter had before, from `@handler(renamed: ["old": "new"])`: a value stored
        /// under one of them binds to this parameter.
        public var formerNames: [String] = []

        public init(
            label: String, name: String, type: String, isOptional: Bool, hasDefault: Bool,
            defaultValue: String?, line: Int, isDefaultCopyable: Bool = true
        ) {
            self.label = label
            self.name = name
            self.type = type
            self.isOptional = isOptional
            self.hasDefault = hasDefault
            self.defaultValue = defaultValue
            self.line = line
            self.isDefaultCopyable = isDefaultCopyable
        }

        /// A mandatory parameter is neither optional nor defaulted.
        public var isMandatory: Bool { !isOptional && !hasDefault }
    }

    /// One branch of an `#if` block that encloses a declaration.
    public struct Condition: Sendable, Hashable, Codable {
        /// `if`, `elseif` or `else`.
        public enum Branch: String, Sendable, Hashable, Codable {
            case `if`, `elseif`, `else`
        }

        public var branch: Branch
        /// The condition text as written (trimmed); empty for `else`.
        public var expression: String
        /// The conditions of the earlier branches of the same block, needed to reproduce an
        /// `#elseif` or `#else` branch on its own: `!(a) && !(b) && (c)`.
        public var precedingExpressions: [String]

        public init(branch: Branch, expression: String, precedingExpressions: [String]) {
            self.branch = branch
            self.expression = expression
            self.precedingExpressions = precedingExpressions
        }
    }
}

/// A problem the scanner found: misuse of `@handler`, or a file it could not read.
public struct ScanDiagnostic: Sendable, Hashable, Codable {
    public enum Severity: String, Sendable, Hashable, Codable {
        case error, warning, note
    }

    /// A suggested edit that fixes the problem, when the fix is obvious.
    public struct FixIt: Sendable, Hashable, Codable {
        /// What the fix does, e.g. "add 'instance:'".
        public var message: String
        /// 1-based line and UTF-8 column where the replaced range starts.
        public var line: Int
        public var column: Int
        /// Length in UTF-8 bytes of the replaced range (0 to insert).
        public var length: Int
        public var replacement: String

        public init(message: String, line: Int, column: Int, length: Int, replacement: String) {
            self.message = message
            self.line = line
            self.column = column
            self.length = length
            self.replacement = replacement
        }
    }

    public var file: String
    public var line: Int
    public var column: Int
    public var severity: Severity
    public var message: String
    public var fixIts: [FixIt]

    public init(
        file: String, line: Int, column: Int, severity: Severity, message: String,
        fixIts: [FixIt] = []
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.severity = severity
        self.message = message
        self.fixIts = fixIts
    }

    /// The compiler's format: `path:line:col: error: message`.
    public var compilerFormatted: String {
        "\(file):\(line):\(column): \(severity.rawValue): \(message)"
    }
}

/// What scanning one or more files produced, in file order, then line order.
public struct ScanResult: Sendable, Hashable, Codable {
    public var handlers: [HandlerDeclaration]
    public var diagnostics: [ScanDiagnostic]
    /// The file-scope `import` declarations of the scanned files, in file, then source order: the
    /// generated file repeats them so that handlers' parameter types resolve as in the sources.
    public var imports: [ImportDeclaration]
    /// The names of the structs, enums, classes, actors, protocols and type aliases the scanned files
    /// declare (nested ones by their own name): the generator never looks for these in C headers.
    package var declaredTypeNames: Set<String> = []

    private enum CodingKeys: String, CodingKey {
        case handlers, diagnostics, imports
    }

    public init(
        handlers: [HandlerDeclaration] = [], diagnostics: [ScanDiagnostic] = [], imports: [ImportDeclaration] = []
    ) {
        self.handlers = handlers
        self.diagnostics = diagnostics
        self.imports = imports
    }

    /// `true` when any diagnostic is an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// A file-scope `import` declaration, e.g. `import Foundation`, `@testable import Core` or
/// `import struct Geometry.Point` (whose module is `Geometry`).
///
/// It has no line: counting lines costs the scanner's fast path (files without handlers never need it).
public struct ImportDeclaration: Sendable, Hashable, Codable {
    public var file: String
    /// The imported module (the first component of the path, backticks removed).
    public var module: String
    /// Whether the declaration is `@testable`.
    public var isTestable: Bool
    /// The `#if` branches the declaration sits under, outermost first.
    public var conditions: [HandlerDeclaration.Condition]

    public init(file: String, module: String, isTestable: Bool, conditions: [HandlerDeclaration.Condition]) {
        self.file = file
        self.module = module
        self.isTestable = isTestable
        self.conditions = conditions
    }
}
