import HandlerScanner
import Mustache

/// Turns the `@handler` functions of one module into the Swift file that registers them with the
/// HandlerKit runtime, rendered through the templates in `Templates/`.
///
/// The file holds:
/// - `extension HandlerTable { public static let <module>: HandlerTable }`, the module's table, named
///   after the module in lower camel case (`Chat` → `.chat`), so start-up code registers it with
///   `try HandlerRegistry.shared.register(.chat)`;
/// - per handler, in an extension of its enclosing type (at file scope for file-scope functions), a
///   `fileprivate static func <name>HandlerDescriptor()` returning its `HandlerDescriptor` (parameters and
///   the shim that extracts the arguments and calls the function), and the compiler-checked reference
///   `static func <name>Handler(<param>: T? = nil, …, invalidation: String? = nil, registry: HandlerRegistry = .shared) throws -> Handler`.
///
/// Output is deterministic: handlers are sorted by id, and the same input gives byte-identical output.
public struct HandlerGenerator: Sendable {
    /// The Swift module the handlers belong to.
    public let moduleName: String

    /// A generator for module `moduleName` (a plain identifier such as `Chat` or `MyApp_Core`).
    public init(moduleName: String) {
        self.moduleName = moduleName
    }

    /// The generated Swift file for the handlers `scan` found.
    ///
    /// - Throws: `GeneratorError` when the scan has errors (its error diagnostics are passed on), two
    ///   handlers share an id, or the module name is not an identifier; nothing is generated then.
    public func generate(_ scan: ScanResult) throws(GeneratorError) -> String {
        try validate(scan)
        let handlers = scan.handlers.sorted(by: Self.order)
        var seen: [String: Int] = [:]
        var sections: [HandlerSection] = []
        for handler in handlers {
            let scope = (handler.kind == .global ? "" : handler.type ?? "") + "\u{0}" + handler.name
            let count = (seen[scope] ?? 0) + 1
            seen[scope] = count
            let context = HandlerContext(handler, descriptorSuffix: count == 1 ? "" : "_\(count)")
            let members = try Templates.render(context, template: Templates.descriptor) + "\n"
                + Templates.render(context, template: Templates.reference)
            sections.append(
                HandlerSection(
                    id: context.id, conditions: context.conditions, isMember: context.isMember,
                    enclosingType: context.enclosingType, qualifier: context.qualifier,
                    descriptorName: context.descriptorName,
                    members: Self.indented(members, by: context.isMember ? "    " : "")
                )
            )
        }
        let tableName = SwiftSource.lowerCamelCase(moduleName)
        let file = FileContext(
            moduleName: SwiftSource.stringLiteralContent(moduleName),
            tableName: SwiftSource.identifier(tableName),
            hasHandlers: !sections.isEmpty,
            handlerCount: sections.count,
            handlers: sections
        )
        return try Templates.render(file, template: Templates.file)
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
                    message: "module name '\(moduleName)' is not a Swift identifier; pass the target's module name (letters, digits and '_')"
                )
            )
        }
        // The scanner reports duplicate ids itself; a scan with errors is refused with its own diagnostics.
        if diagnostics.isEmpty {
            diagnostics = Self.duplicateIDs(in: scan.handlers)
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
                    message: "duplicate handler id '\(handler.id)' (also used at \(places)); give one of them another id with @handler(id: \"…\")"
                )
            )
        }
        return diagnostics
    }

    /// Whether one declaration needs a condition to be false that the other needs to be true.
    static func areExclusive(_ first: [HandlerDeclaration.Condition], _ second: [HandlerDeclaration.Condition]) -> Bool {
        for a in first {
            for b in second {
                if a.branch != .else, !a.expression.isEmpty, b.precedingExpressions.contains(a.expression) { return true }
                if b.branch != .else, !b.expression.isEmpty, a.precedingExpressions.contains(b.expression) { return true }
            }
        }
        return false
    }
}
