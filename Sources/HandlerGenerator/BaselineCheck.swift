import HandlerScanner

/// Compares a module's handlers with its committed baseline and reports every change
/// that would stop stored handlers from rebuilding or running, like `buf breaking` for a schema: at the
/// handler's `@handler` line, with the fix in the message, at the severity the baseline's `rules` set.
///
/// Compatible changes pass silently: new handlers, new optional or defaulted parameters, added former
/// names, a renamed id or parameter whose former name is declared, a parameter becoming optional, a
/// type becoming optional or widening (`Int` → `Double`), and a parameter removed outright (values
/// stored under it are kept and ignored). A handler that is gone has no line in the sources: it is
/// reported at its entry in the baseline file, unless a new handler looks like its rename.
package enum BaselineCheck {
    /// The diagnostics for the handlers `scan` found against `baseline`, in file, then line order.
    package static func diagnostics(_ scan: ScanResult, module: String, against baseline: Baseline) -> [ScanDiagnostic]
    {
        let old = baseline.manifest
        if old.module != module {
            return [
                ScanDiagnostic(
                    file: baseline.file, line: baseline.moduleLine, column: 1, severity: .error,
                    message: "the handler baseline is of module '\(old.module)', not '\(module)'; write this "
                        + "module's with `swift package --allow-writing-to-package-directory update-handler-baseline`")
            ]
        }
        var reporter = Reporter(rules: old.rules)
        let current = HandlerManifest(module: module, scan: scan)
        var declarations: [String: HandlerDeclaration] = [:]
        for declaration in scan.handlers where declarations[declaration.id] == nil {
            declarations[declaration.id] = declaration
        }
        let oldIDs = Set(old.handlers.map(\.id))
        // Current handlers that answer no id of the baseline: new, or renamed without a former id.
        var unmatched = current.handlers.filter { handler in
            !oldIDs.contains(handler.id) && !handler.formerIDs.contains(where: oldIDs.contains)
        }
        for oldHandler in old.handlers {
            if let handler = current.handler(answering: oldHandler.id), let declaration = declarations[handler.id] {
                compareParameters(of: oldHandler, with: handler, at: declaration, reporter: &reporter)
                continue
            }
            if let index = unmatched.firstIndex(where: { looksRenamed(oldHandler, to: $0) }),
                let declaration = declarations[unmatched[index].id]
            {
                let handler = unmatched.remove(at: index)
                reporter.report(
                    .handlerRemoved, at: declaration,
                    "handler id '\(oldHandler.id)' (\(oldHandler.function)) of the baseline is gone and '\(handler.id)' "
                        + "is new: if '\(handler.function)' is '\(oldHandler.function)' renamed, add 'formerly: "
                        + "\"\(oldHandler.id)\"' to its @handler so that stored documents naming '\(oldHandler.id)' "
                        + "rebuild; if '\(oldHandler.id)' was removed on purpose, accept it with `swift package "
                        + "--allow-writing-to-package-directory update-handler-baseline`")
                continue
            }
            reporter.report(
                .handlerRemoved, file: baseline.file, line: baseline.lines[oldHandler.id] ?? 1, column: 1,
                "handler '\(oldHandler.id)' (\(oldHandler.function)) of the baseline no longer exists: stored "
                    + "documents naming it fail to rebuild (unknown handler); restore it, add @handler(formerly: "
                    + "\"\(oldHandler.id)\") to the handler that replaces it, or accept the removal with "
                    + "`swift package --allow-writing-to-package-directory update-handler-baseline`")
        }
        return reporter.diagnostics
    }

    /// Whether `new` (a handler the baseline does not know) is probably `old` renamed: the same base
    /// name in another type, or every parameter of `old` still there (by name or former name).
    static func looksRenamed(_ old: HandlerManifest.Handler, to new: HandlerManifest.Handler) -> Bool {
        let baseName = { (function: String) in function.split(separator: ".").last.map(String.init) ?? function }
        if baseName(old.function) == baseName(new.function) { return true }
        return !old.parameters.isEmpty
            && old.parameters.allSatisfy { parameter in
                new.parameters.contains { $0.name == parameter.name || $0.formerNames.contains(parameter.name) }
            }
    }

    static func compareParameters(
        of old: HandlerManifest.Handler, with new: HandlerManifest.Handler, at declaration: HandlerDeclaration,
        reporter: inout Reporter
    ) {
        let id = new.id
        var added = new.parameters.filter { parameter in
            !old.parameters.contains { $0.name == parameter.name || parameter.formerNames.contains($0.name) }
        }
        var gone: [HandlerManifest.Parameter] = []
        for oldParameter in old.parameters {
            guard
                let parameter = new.parameters.first(where: { $0.name == oldParameter.name })
                    ?? new.parameters.first(where: { $0.formerNames.contains(oldParameter.name) })
            else {
                // A value could only be stored under it if it was bindable; one removed outright is ignored.
                if oldParameter.isBindable != false { gone.append(oldParameter) }
                continue
            }
            compare(oldParameter, parameter, of: id, at: declaration, reporter: &reporter)
        }
        if !gone.isEmpty, !added.isEmpty {
            for oldParameter in gone {
                let names = added.map { "'\($0.name)'" }.joined(separator: ", ")
                let example = added[0].name
                reporter.report(
                    .parameterRenamed, at: declaration,
                    "parameter '\(oldParameter.name)' of handler '\(id)' is gone and \(names) \(added.count == 1 ? "is" : "are") "
                        + "new: if '\(example)' is '\(oldParameter.name)' renamed, add 'renamed: [\"\(oldParameter.name)\": "
                        + "\"\(example)\"]' to its @handler so that values stored under '\(oldParameter.name)' bind to it; if "
                        + "'\(oldParameter.name)' was removed on purpose, accept it with `swift package --allow-writing-to-package-directory update-handler-baseline`"
                )
            }
            // The fix for a rename declares the former name, after which the parameter is not new.
            added.removeAll()
        }
        // A parameter that cannot be bound is always passed at call time; stored handlers never had it.
        for parameter in added where parameter.isMandatory && parameter.isBindable != false {
            reporter.report(
                .mandatoryParameterAdded, at: declaration,
                "new parameter '\(parameter.name)' of handler '\(id)' is mandatory: stored handlers did not bind it, "
                    + "so calling them fails (missing argument) unless every call passes it; give it a default value "
                    + "or make it optional ('\(parameter.type)?'), or accept it with `swift package --allow-writing-to-package-directory update-handler-baseline`"
            )
        }
    }

    static func compare(
        _ old: HandlerManifest.Parameter, _ new: HandlerManifest.Parameter, of id: String,
        at declaration: HandlerDeclaration, reporter: inout Reporter
    ) {
        let name = new.name == old.name ? "'\(new.name)'" : "'\(new.name)' (formerly '\(old.name)')"
        if !old.isMandatory && new.isMandatory {
            reporter.report(
                .mandatoryParameterAdded, at: declaration,
                "parameter \(name) of handler '\(id)' became mandatory: stored handlers that did not bind it fail "
                    + "to call (missing argument); give it a default value or keep it optional, or accept it with "
                    + "`swift package --allow-writing-to-package-directory update-handler-baseline`")
        }
        if old.isBindable == true && new.isBindable == false {
            reporter.report(
                .bindableLost, at: declaration,
                "parameter \(name) of handler '\(id)' was bindable ('\(old.type)') and its type '\(new.type)' cannot "
                    + "be bound: stored values of it no longer decode; keep a Codable type, or add a new parameter "
                    + "and accept the change with `swift package --allow-writing-to-package-directory update-handler-baseline`"
            )
            return
        }
        // No value can have been stored for a parameter that could not be bound.
        guard old.isBindable != false else { return }
        let oldCanonical = ParameterTypeShape.canonical(old.type)
        let newCanonical = ParameterTypeShape.canonical(new.type)
        guard oldCanonical != newCanonical else { return }
        let oldShape = ParameterTypeShape(type: old.type)
        let newShape = ParameterTypeShape(type: new.type)
        if oldShape.isWidened(to: newShape) { return }
        if oldShape.certainlyDiffers(from: newShape) {
            reporter.report(
                .typeShapeChanged, at: declaration,
                "parameter \(name) of handler '\(id)' changed type from '\(old.type)' to '\(new.type)': values "
                    + "stored as '\(old.type)' do not decode as '\(new.type)'; keep the type (add a new parameter "
                    + "for the new one), or accept the break with `swift package --allow-writing-to-package-directory update-handler-baseline`"
            )
        } else {
            reporter.report(
                .typeChanged, at: declaration,
                "parameter \(name) of handler '\(id)' changed type from '\(old.type)' to '\(new.type)': values "
                    + "stored as '\(old.type)' may not decode; make sure they do, then accept the change with "
                    + "`swift package --allow-writing-to-package-directory update-handler-baseline`")
        }
    }

    /// Collects findings at the severities the baseline sets.
    struct Reporter {
        let rules: [EvolutionRule: EvolutionSeverity]
        var diagnostics: [ScanDiagnostic] = []

        mutating func report(_ rule: EvolutionRule, at declaration: HandlerDeclaration, _ message: String) {
            report(rule, file: declaration.file, line: declaration.line, column: declaration.column, message)
        }

        mutating func report(_ rule: EvolutionRule, file: String, line: Int, column: Int, _ message: String) {
            let severity: ScanDiagnostic.Severity
            switch rules[rule] ?? rule.defaultSeverity {
            case .error: severity = .error
            case .warning: severity = .warning
            case .ignore: return
            }
            diagnostics.append(
                ScanDiagnostic(
                    file: file, line: line, column: column, severity: severity,
                    message: message + " [\(rule.rawValue)]"))
        }
    }
}
