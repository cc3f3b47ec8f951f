extension ModuleChecks {
    /// An error at both declarations wherever a former id (`@handler(formerly:)`) is another handler's
    /// id or former id, unless the two sit in mutually exclusive `#if` branches: a stored document
    /// naming that id must rebuild to exactly one handler.
    static func formerIDCollisions(in handlers: [HandlerDeclaration]) -> [ScanDiagnostic] {
        guard handlers.contains(where: { !$0.formerIDs.isEmpty }) else { return [] }
        var diagnostics: [ScanDiagnostic] = []
        for (index, handler) in handlers.enumerated() {
            for (otherIndex, other) in handlers.enumerated() where otherIndex != index {
                if areExclusive(handler.conditions, other.conditions) { continue }
                for former in handler.formerIDs where former == other.id || other.formerIDs.contains(former) {
                    diagnostics.append(
                        diagnostic(
                            at: handler,
                            Diagnostics.formerIDCollision(
                                former, isFormerThere: former != other.id, otherFile: other.file,
                                otherLine: other.line)))
                }
                if other.formerIDs.contains(handler.id) {
                    diagnostics.append(
                        diagnostic(
                            at: handler,
                            Diagnostics.idIsFormerElsewhere(handler.id, otherFile: other.file, otherLine: other.line)))
                }
            }
        }
        return diagnostics
    }

    private static func diagnostic(at handler: HandlerDeclaration, _ message: String) -> ScanDiagnostic {
        ScanDiagnostic(
            file: handler.file, line: handler.line, column: handler.column, severity: .error, message: message)
    }
}

extension SourceScanner {
    /// The errors of former ids that are another handler's id or former id, at both declarations (the
    /// module scans report them already; for callers that assemble handlers themselves).
    public static func formerIDCollisions(in handlers: [HandlerDeclaration]) -> [ScanDiagnostic] {
        ModuleChecks.formerIDCollisions(in: handlers)
    }
}
