/// Checks that span a whole module (every file scanned together): handler ids must be unique.
enum ModuleChecks {
    /// One error at each declaration whose id another declaration also uses, unless the two sit in
    /// mutually exclusive `#if` branches (`#if os(iOS)` … `#else` …).
    static func duplicateIDs(in handlers: [HandlerDeclaration]) -> [ScanDiagnostic] {
        var byID: [String: [Int]] = [:]
        for (index, handler) in handlers.enumerated() { byID[handler.id, default: []].append(index) }
        var diagnostics: [ScanDiagnostic] = []
        for index in handlers.indices {
            let handler = handlers[index]
            guard let group = byID[handler.id], group.count > 1 else { continue }
            for other in group where other != index {
                let otherHandler = handlers[other]
                if areExclusive(handler.conditions, otherHandler.conditions) { continue }
                diagnostics.append(
                    ScanDiagnostic(
                        file: handler.file, line: handler.line, column: handler.column, severity: .error,
                        message: Diagnostics.duplicateID(
                            handler.id, otherFile: otherHandler.file, otherLine: otherHandler.line,
                            otherColumn: otherHandler.column)))
                break
            }
        }
        return diagnostics
    }

    /// Whether no build can compile both declarations: one needs a condition false that the other needs
    /// true (same text).
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
