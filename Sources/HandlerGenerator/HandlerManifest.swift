import HandlerScanner

/// A module's handlers as stored handlers see them: ids, former ids and, per
/// parameter, its name, former names, type, whether it is mandatory and whether it can be bound.
///
/// Committed next to a target's sources as its baseline (`swift package --allow-writing-to-package-directory update-handler-baseline`
/// writes it; `handlergen manifest` prints it), it is what the build compares the handlers with.
/// Its JSON is deterministic and diff-friendly: fixed key order, handlers sorted by id, one parameter
/// per line. It names no file or line, so moving a handler does not change it.
package struct HandlerManifest: Sendable, Equatable {
    /// The file name of the baseline in a target's folder. Hidden, so SwiftPM does not report it as an
    /// unhandled file of the target.
    package static let baselineFileName = ".handlers-baseline.json"
    /// The version of the JSON form this generator writes and reads.
    package static let formatVersion = 1

    package struct Handler: Sendable, Equatable {
        package var id: String
        /// `Type.Path.name`, or `name` at file scope: what a message names.
        package var function: String
        package var formerIDs: [String]
        package var parameters: [Parameter]

        package init(id: String, function: String, formerIDs: [String], parameters: [Parameter]) {
            self.id = id
            self.function = function
            self.formerIDs = formerIDs
            self.parameters = parameters
        }
    }

    package struct Parameter: Sendable, Equatable {
        /// The internal name: the key of its bound values.
        package var name: String
        package var formerNames: [String]
        /// The type as written, whitespace removed.
        package var type: String
        /// Neither optional nor defaulted.
        package var isMandatory: Bool
        /// Whether a value can be bound: `nil` when only the compiler knows (a type of the app).
        package var isBindable: Bool?

        package init(name: String, formerNames: [String], type: String, isMandatory: Bool, isBindable: Bool?) {
            self.name = name
            self.formerNames = formerNames
            self.type = type
            self.isMandatory = isMandatory
            self.isBindable = isBindable
        }
    }

    package var module: String
    /// How each rule is reported, as the baseline file sets it (every rule, defaults filled in).
    package var rules: [EvolutionRule: EvolutionSeverity]
    /// Sorted by id.
    package var handlers: [Handler]

    package init(module: String, rules: [EvolutionRule: EvolutionSeverity] = Self.defaultRules, handlers: [Handler]) {
        self.module = module
        self.rules = rules
        self.handlers = handlers.sorted { $0.id < $1.id }
    }

    /// Every rule at its default severity.
    package static let defaultRules = Dictionary(
        uniqueKeysWithValues: EvolutionRule.allCases.map { ($0, $0.defaultSeverity) })

    /// The manifest of the handlers `scan` found. A handler declared in mutually exclusive `#if`
    /// branches under one id is listed once (its first declaration in file order).
    package init(module: String, scan: ScanResult, rules: [EvolutionRule: EvolutionSeverity] = Self.defaultRules) {
        var seen: Set<String> = []
        var handlers: [Handler] = []
        for declaration in scan.handlers where seen.insert(declaration.id).inserted {
            handlers.append(Handler(declaration))
        }
        self.init(module: module, rules: rules, handlers: handlers)
    }

    /// The handler whose id or former id is `id`.
    func handler(answering id: String) -> Handler? {
        handlers.first { $0.id == id } ?? handlers.first { $0.formerIDs.contains(id) }
    }

    // MARK: JSON

    /// The manifest as pretty-printed JSON, ending with a newline.
    package var json: String {
        var lines = ["{"]
        lines.append("  \"about\": \(ScanReport.string(Self.about)),")
        lines.append("  \"format\": \(Self.formatVersion),")
        lines.append("  \"module\": \(ScanReport.string(module)),")
        lines.append("  \"rules\": {")
        let ruleLines = EvolutionRule.allCases.sorted().map { rule in
            "    \(ScanReport.string(rule.rawValue)): \(ScanReport.string((rules[rule] ?? rule.defaultSeverity).rawValue))"
        }
        lines.append(ruleLines.joined(separator: ",\n"))
        lines.append("  },")
        if handlers.isEmpty {
            lines.append("  \"handlers\": []")
        } else {
            lines.append("  \"handlers\": [")
            lines.append(handlers.map(\.json).joined(separator: ",\n"))
            lines.append("  ]")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `["a", "b"]`: strings as a one-line JSON array.
    static func list(_ texts: [String]) -> String {
        "[" + texts.map(ScanReport.string).joined(separator: ", ") + "]"
    }

    static let about =
        "The @handler functions of this module as stored handlers rely on them. The HandlerKit build plugin "
        + "reports every change that would stop stored handlers from rebuilding; after reviewing an "
        + "intended change, update this file with `swift package --allow-writing-to-package-directory update-handler-baseline`. 'rules' sets "
        + "each check to error, warning or ignore."
}

extension HandlerManifest.Handler {
    init(_ declaration: HandlerDeclaration) {
        self.init(
            id: declaration.id,
            function: [declaration.type, declaration.name].compactMap { $0 }.joined(separator: "."),
            formerIDs: declaration.formerIDs,
            parameters: declaration.parameters.map(HandlerManifest.Parameter.init))
    }

    var json: String {
        var lines = ["    {"]
        lines.append("      \"id\": \(ScanReport.string(id)),")
        lines.append("      \"function\": \(ScanReport.string(function)),")
        lines.append("      \"formerIDs\": \(HandlerManifest.list(formerIDs)),")
        if parameters.isEmpty {
            lines.append("      \"parameters\": []")
        } else {
            lines.append("      \"parameters\": [")
            lines.append(parameters.map { "        " + $0.json }.joined(separator: ",\n"))
            lines.append("      ]")
        }
        lines.append("    }")
        return lines.joined(separator: "\n")
    }
}

extension HandlerManifest.Parameter {
    init(_ parameter: HandlerDeclaration.Parameter) {
        self.init(
            name: parameter.name, formerNames: parameter.formerNames, type: parameter.type,
            isMandatory: parameter.isMandatory, isBindable: ParameterTypeShape(type: parameter.type).isBindable)
    }

    var json: String {
        let bindable = isBindable.map { "\($0)" } ?? "null"
        let former = HandlerManifest.list(formerNames)
        return
            "{\"name\": \(ScanReport.string(name)), \"formerNames\": \(former), \"type\": \(ScanReport.string(type)), "
            + "\"mandatory\": \(isMandatory), \"bindable\": \(bindable)}"
    }
}
