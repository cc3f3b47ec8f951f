import CHeaderReader
import HandlerScanner

/// Turns the `@handler` functions of one module into the Swift file that registers them with the
/// HandlerKit runtime, rendered through the templates in `Templates/`.
///
/// ## What the file declares
///
/// - The module's table: `extension HandlerTable { public static let <module>: HandlerTable }`, named
///   after the module in lower camel case (`Chat` → `chat`, `URLTools` → `urlTools`, backticked if a
///   keyword). Start-up code registers every handler of the module with one call:
///   `try HandlerRegistry.shared.register(.chat)`.
/// - Per handler, in an `extension` of its enclosing type (so nested types used as parameter types and
///   static members used unqualified in default values resolve as in the declaration), or at file scope
///   for file-scope functions:
///   - `nonisolated fileprivate static func <name>HandlerDescriptor() -> HandlerDescriptor` (`nonisolated`
///     so an actor-isolated type's entries can be built by the table): the parameters and the
///     shim that binds each argument to a local of the parameter's type and calls the function with
///     them (`invokeAsync:` for `async` handlers; instance handlers call the method on the `instance:`
///     expression). A further handler with the same base name in the same scope (an overload with its
///     own id) gets `_2`, `_3`… in id order.
///   - The handler's id as a value the compiler checks, for invalidation targets:
///     `nonisolated static var <name>HandlerID: HandlerID` (file scope: `var <name>HandlerID`).
///   - The compiler-checked reference:
///     `nonisolated static func <name>Handler(<param>: T? = nil, …, invalidation: HandlerID? = nil, registry: HandlerRegistry = .shared) throws -> Handler`
///     — one optional, typed argument per parameter, labelled with the parameter's internal name (the
///     argument key); a value passed is bound (`HandlerBindings`), `nil` leaves it to call time. A
///     misspelt handler or argument, or a value of the wrong type, does not compile:
///     `let handler = try Carbons.enabledHandler(account: account, limit: 3)`.
///     File-scope handlers get a file-scope `func <name>Handler(…)`.
///   - The typed call, with the reference's modifiers (or isolated to the handler's global actor):
///     `nonisolated static func call<Name>Handler(_ handler: Handler, <param>: T? = nil, …) throws`
///     (`async throws` for `async` handlers) — the same parameters as the reference, passed at call time:
///     `try Carbons.callEnabledHandler(handler, limit: 3)`. It runs `handler.callBound(as: "<id>")`
///     (the handler must be one of this function, not invalidated) and calls the function with each
///     value passed, else the bound value, else the default, read as the shim reads it:
///     `let limit: Int = try limit ?? arguments.value("limit", default: defaultLimit)`. The values are checked by the
///     compiler and passed without boxing, so a call costs what a call with bound values only costs;
///     types that are not `Codable` (which cannot be bound) are passed this way too. `<Name>` is the
///     base name with its first letter uppercased; see `callNames` for the suffixes of clashing names.
///
/// The id, the reference and the typed call take the handler's access level
/// (`HandlerDeclaration.access`: `public`, `package`, else nothing), so other modules use a public
/// handler's helpers; the descriptor stays `fileprivate`.
///
/// A handler isolated to a global actor (`HandlerDeclaration.globalActor`) gets an `invokeAsync:` shim
/// whose closure is isolated to that actor (`{ @MainActor arguments in … }`): the runtime awaits it, so
/// the handler is called there, and a synchronous `call` throws `requiresAsync`. Its typed call is
/// isolated to the actor and `async`, passing a closure declared `async throws` to the `async`
/// `callBound`, which runs in the caller's isolation.
///
/// A default value that names a private symbol of the user's file
/// (`HandlerDeclaration.Parameter.isDefaultCopyable`) is not copied: such a parameter is read as an
/// optional local, and the shim calls the function in the `if let` branch of the values present,
/// leaving the absent ones out so that Swift applies their defaults (2^n calls for n such parameters,
/// at most `maximumOmittedDefaults`).
///
/// ## Names that could clash
///
/// The generated members carry the `Handler`/`HandlerDescriptor` suffixes to stay clear of the user's
/// own members; `invalidation:`/`registry:` become `handlerInvalidation:`/`handlerRegistry:` (then with
/// `_` appended until free) when the handler has a parameter of that name, and the shim's `arguments`
/// and the reference's `bindings` locals likewise avoid parameter names. The typed call's `handler`
/// parameter avoids parameter names and the names its default values and `instance:` expression use;
/// a parameter whose name a default value uses (`limit: Int = limit`, a static member) gets another
/// internal name there (`limit limit_: Int? = nil`), the label staying. Keywords are backticked.
///
/// ## Guarantees
///
/// Output is deterministic: handlers are sorted by id, there is no timestamp or version in the header,
/// and the same input gives byte-identical output. Each handler's `#if` conditions are reproduced around
/// its members and its table entry (an `#elseif`/`#else` branch as the conjunction of its negated earlier
/// branches and its own condition). `#sourceLocation` maps every generated line that carries text from
/// the user's declaration (types, default values, the `instance:` expression) to the user's line. The
/// file reads like hand-written code: one statement per line, at most 120 columns where the text is
/// the generator's own (see `HandlerContext+Layout.swift` and Templates/README.md).
package struct HandlerGenerator: Sendable {
    /// The Swift module the handlers belong to.
    package let moduleName: String

    /// Whether the file maps the user's text back to the user's lines with `#sourceLocation`.
    ///
    /// Turn it off only for a generated file that is checked in and compiled from another path than the
    /// one it names: the compiler warns when a `#sourceLocation` path and the path it compiles the same
    /// file from differ but give the same `#fileID`. The build plugin passes the compiler's own paths.
    package let sourceLocations: Bool

    /// A generator for module `moduleName` (a plain identifier such as `Chat` or `MyApp_Core`).
    package init(moduleName: String, sourceLocations: Bool = true) {
        self.moduleName = moduleName
        self.sourceLocations = sourceLocations
    }

    /// The generated Swift file for the handlers `scan` found.
    ///
    /// - Parameter cTypes: The C structs and enums the handlers bind, read from the headers of the
    ///   module's C dependencies (see `CTypeConversions`); the file imports their modules and gets a
    ///   `Codable` conformance for each, after the handlers.
    /// - Throws: `GeneratorError` when the scan has errors (its error diagnostics are passed on), two
    ///   handlers share an id, the module name is not an identifier, or a C type cannot be converted
    ///   (a header that does not parse, a union, a pointer: reported at the header's line); nothing is
    ///   generated then.
    package func generate(_ scan: ScanResult, cTypes: CTypeConversions = .none) throws(GeneratorError) -> String {
        try validate(scan)
        let cErrors = cTypes.errors()
        if !cErrors.isEmpty { throw GeneratorError(diagnostics: cErrors) }
        let handlers = scan.handlers.sorted(by: Self.order)
        let callNames = Self.callNames(handlers)
        var seen: [String: Int] = [:]
        // The ids seen per scope and name: one id, declared under exclusive `#if` branches, keeps one
        // `<name>HandlerID` name, so code naming it compiles whichever branch is active.
        var idsSeen: [String: [String]] = [:]
        var sections: [HandlerSection] = []
        let tableName = SwiftSource.lowerCamelCase(moduleName)
        for (handler, callName) in zip(handlers, callNames) {
            let scope = Self.scope(of: handler) + "\u{0}" + handler.name
            let count = (seen[scope] ?? 0) + 1
            seen[scope] = count
            if idsSeen[scope]?.last != handler.id { idsSeen[scope, default: []].append(handler.id) }
            let idCount = idsSeen[scope]?.count ?? 1
            let context = HandlerContext(
                handler, descriptorSuffix: count == 1 ? "" : "_\(count)", idSuffix: idCount == 1 ? "" : "_\(idCount)",
                callName: callName, sourceLocations: sourceLocations, moduleName: moduleName, tableName: tableName)
            let members =
                try Templates.render(context, template: Templates.descriptor) + "\n"
                + Templates.render(context, template: Templates.reference) + "\n"
                + Templates.render(context, template: Templates.call)
            sections.append(
                HandlerSection(
                    id: context.id, conditions: context.conditions, isMember: context.isMember,
                    enclosingType: context.enclosingType, qualifier: context.qualifier,
                    descriptorName: context.descriptorName,
                    members: Self.indented(members, by: context.isMember ? "    " : "")
                )
            )
        }
        let sourceImports = Self.sourceImports(scan.imports)
        let importedUnconditionally = Set(sourceImports.filter(\.conditions.isEmpty).map(\.declaration))
        let file = FileContext(
            moduleName: SwiftSource.stringLiteralContent(moduleName),
            tableName: SwiftSource.identifier(tableName),
            hasHandlers: !sections.isEmpty,
            handlerCount: sections.count,
            handlers: sections,
            sourceImports: sourceImports,
            cImports: cTypes.imports.filter { !importedUnconditionally.contains("import \($0)") }.map(
                ImportContext.init),
            cTypes: try Self.cTypeSections(cTypes.model)
        )
        return try Templates.render(file, template: Templates.file)
    }

    /// The scope a handler's generated members are declared in: its type, or `""` at file scope.
    static func scope(of handler: HandlerDeclaration) -> String {
        handler.kind == .global ? "" : handler.type ?? ""
    }

    /// The names of the typed calls of `handlers` (in id order), index for index: `call<Name>Handler`,
    /// `<Name>` being the base name with its first letter uppercased; then `_2`, `_3`… until the name is
    /// neither an earlier typed call's nor a reference's (`<name>Handler`) in the same scope. So
    /// overloads (`send(a:)`, `send(b:)`) get `callSendHandler` and `callSendHandler_2`, like their
    /// descriptors, and so do `send` and `Send`; a handler `callSend` keeps its reference `callSendHandler`.
    /// Declarations of one id (under exclusive `#if` branches) share one name, so a call of it compiles
    /// whichever branch is active.
    static func callNames(_ handlers: [HandlerDeclaration]) -> [String] {
        var taken: [String: Set<String>] = [:]
        for handler in handlers {
            taken[scope(of: handler), default: []].insert(handler.name + "Handler")
        }
        var byID: [String: String] = [:]
        return handlers.map { handler in
            let key = scope(of: handler) + "\u{0}" + handler.name + "\u{0}" + handler.id
            if let name = byID[key] { return name }
            let stem = "call" + handler.name.prefix(1).uppercased() + handler.name.dropFirst() + "Handler"
            var name = stem
            var count = 1
            while taken[scope(of: handler), default: []].contains(name) {
                count += 1
                name = stem + "_\(count)"
            }
            taken[scope(of: handler), default: []].insert(name)
            byID[key] = name
            return name
        }
    }

    /// The sources' imports, once each, sorted by module: an import that any file makes without `#if`
    /// is repeated without one; otherwise once per distinct set of branches. HandlerKit is imported anyway.
    static func sourceImports(_ imports: [ImportDeclaration]) -> [SourceImportContext] {
        struct Key: Hashable {
            var module: String
            var isTestable: Bool
        }
        var branches: [Key: [[HandlerDeclaration.Condition]]] = [:]
        for declaration in imports where declaration.module != "HandlerKit" {
            let key = Key(module: declaration.module, isTestable: declaration.isTestable)
            if !branches[key, default: []].contains(declaration.conditions) {
                branches[key, default: []].append(declaration.conditions)
            }
        }
        // A testable import makes the plain one redundant.
        for key in branches.keys where key.isTestable {
            branches[Key(module: key.module, isTestable: false)] = nil
        }
        return branches.keys.sorted { ($0.module, $0.isTestable ? 1 : 0) < ($1.module, $1.isTestable ? 1 : 0) }.flatMap
        { key in
            let sets = branches[key] ?? []
            let declaration = (key.isTestable ? "@testable import " : "import ") + key.module
            if sets.contains(where: \.isEmpty) {
                return [SourceImportContext(declaration: declaration, conditions: [])]
            }
            return sets.map { SourceImportContext(declaration: declaration, conditions: $0.map(ConditionContext.init)) }
        }
    }

    /// The `Codable` conformance of every declaration in `model`, in name order.
    static func cTypeSections(_ model: CHeaderModel) throws(GeneratorError) -> [CTypeSection] {
        var sections: [CTypeSection] = []
        for declaration in model.declarations {
            let location =
                declaration.location.map { "\($0.file.split(separator: "/").last ?? ""):\($0.line)" } ?? "C header"
            let context: CTypeContext
            switch declaration {
            case .structure(let structure):
                let writer = CConversionWriter(structure)
                context = CTypeContext(
                    name: declaration.name, location: location, isStructure: true,
                    decodeLines: writer.decodeLines.map(LineContext.init),
                    encodeLines: writer.encodeLines.map(LineContext.init))
            case .enumeration:
                context = CTypeContext(
                    name: declaration.name, location: location, isStructure: false, decodeLines: [], encodeLines: [])
            }
            let text = try Templates.render(context, template: Templates.cType)
            sections.append(CTypeSection(name: declaration.name, text: indented(text, by: "")))
        }
        return sections
    }

    /// `text` without its final newline, every non-empty line prefixed with `indentation`.
    static func indented(_ text: String, by indentation: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map { $0.isEmpty ? "" : indentation + $0 }.joined(separator: "\n")
    }

    /// Handlers in id order; ties (only possible in invalid input) by file and line.
    static func order(_ lhs: HandlerDeclaration, _ rhs: HandlerDeclaration) -> Bool {
        if lhs.id != rhs.id { return lhs.id < rhs.id }
        if lhs.file != rhs.file { return lhs.file < rhs.file }
        if lhs.line != rhs.line { return lhs.line < rhs.line }
        return lhs.column < rhs.column
    }

    private func validate(_ scan: ScanResult) throws(GeneratorError) {
        var diagnostics = scan.diagnostics.filter { $0.severity == .error }
        if !SwiftSource.isPlainIdentifier(moduleName) {
            diagnostics.append(
                ScanDiagnostic(
                    file: "<command line>", line: 1, column: 1, severity: .error,
                    message:
                        "module name '\(moduleName)' is not a Swift identifier; pass the target's module name (letters, digits and '_')"
                )
            )
        }
        // The scanner reports duplicate ids itself; a scan with errors is refused with its own diagnostics.
        if diagnostics.isEmpty {
            diagnostics =
                Self.duplicateIDs(in: scan.handlers) + SourceScanner.formerIDCollisions(in: scan.handlers)
                + Self.incompleteDeclarations(in: scan.handlers) + Self.tooManyOmittedDefaults(in: scan.handlers)
        }
        if !diagnostics.isEmpty {
            throw GeneratorError(diagnostics: diagnostics)
        }
    }

    /// An error at every handler whose id another handler also has, unless the two sit in mutually
    /// exclusive `#if` branches (then no build compiles both).
    static func duplicateIDs(in handlers: [HandlerDeclaration]) -> [ScanDiagnostic] {
        let sorted = handlers.sorted(by: order)
        var diagnostics: [ScanDiagnostic] = []
        for (index, handler) in sorted.enumerated() {
            let clashes = sorted.enumerated().filter { other in
                other.offset != index && other.element.id == handler.id
                    && !areExclusive(handler.conditions, other.element.conditions)
            }
            guard !clashes.isEmpty else { continue }
            let places = clashes.map { "\($0.element.file):\($0.element.line)" }.joined(separator: ", ")
            diagnostics.append(
                ScanDiagnostic(
                    file: handler.file, line: handler.line, column: handler.column, severity: .error,
                    message:
                        "duplicate handler id '\(handler.id)' (also used at \(places)); give one of them another id with @handler(id: \"…\")"
                )
            )
        }
        return diagnostics
    }

    /// Declarations the scanner would not produce: an instance handler without `instance:` or a type,
    /// a static one without a type.
    static func incompleteDeclarations(in handlers: [HandlerDeclaration]) -> [ScanDiagnostic] {
        handlers.sorted(by: order).compactMap { handler in
            let problem: String
            switch handler.kind {
            case .instance where handler.instance?.isEmpty ?? true:
                problem =
                    "instance method '\(handler.name)' needs @handler(instance: \"…\") to say how the shim finds its object"
            case .instance where handler.type == nil, .static where handler.type == nil:
                problem = "method '\(handler.name)' has no enclosing type"
            default:
                return nil
            }
            return ScanDiagnostic(
                file: handler.file, line: handler.line, column: handler.column, severity: .error, message: problem)
        }
    }

    /// The most parameters per handler whose default the shims leave to Swift: each doubles the calls
    /// a shim writes (see `HandlerContext.callVariants`).
    static let maximumOmittedDefaults = 3

    /// An error at each parameter beyond `maximumOmittedDefaults` whose default names a private symbol,
    /// with the fix.
    static func tooManyOmittedDefaults(in handlers: [HandlerDeclaration]) -> [ScanDiagnostic] {
        handlers.sorted(by: order).flatMap { handler in
            let omitted = handler.parameters.filter { $0.hasDefault && !$0.isDefaultCopyable }
            return omitted.dropFirst(maximumOmittedDefaults).map { parameter in
                ScanDiagnostic(
                    file: handler.file, line: parameter.line, column: 1, severity: .error,
                    message: "the default value of '\(parameter.name)' names a private or fileprivate symbol, "
                        + "and handler '\(handler.name)' already has \(maximumOmittedDefaults) such parameters; the generated code "
                        + "leaves such defaults to Swift by calling the function without them, one call per combination; "
                        + "make the symbol internal (e.g. drop 'private' from it) so the default can be repeated")
            }
        }
    }

    /// Whether one declaration needs a condition to be false that the other needs to be true.
    static func areExclusive(_ first: [HandlerDeclaration.Condition], _ second: [HandlerDeclaration.Condition]) -> Bool
    {
        for a in first {
            for b in second {
                if a.branch != .else, !a.expression.isEmpty, b.precedingExpressions.contains(a.expression) {
                    return true
                }
                if b.branch != .else, !b.expression.isEmpty, a.precedingExpressions.contains(b.expression) {
                    return true
                }
            }
        }
        return false
    }
}
