import HandlerScanner

/// What `handlergen scan` prints.
///
/// The JSON form is a public interface other tools read. It is one line:
///
/// ```json
/// {"handlers":[{"file":"Carbons.swift","line":4,"id":"Carbons.enabled","type":"Carbons","name":"enabled",
///   "kind":"static","instance":null,"async":false,"throws":false,"parameters":[{"label":"account",
///   "name":"account","type":"Account","optional":false,"hasDefault":false}]}],
///  "diagnostics":[{"file":"Bad.swift","line":3,"severity":"error","message":"…"}]}
/// ```
///
/// Two keys appear only when former names are declared: a handler's `formerIDs` (after
/// `parameters`) and a parameter's `formerNames` (after `hasDefault`), each an array of strings as written.
/// Keys appear in exactly this order; handlers and diagnostics are ordered by file, then line. `type` and
/// `instance` are `null` when absent; `kind` is `static`, `instance` or `global`; a parameter's `type` is
/// as written with all whitespace removed; `optional` is true for `T?`, `T!` and `Optional<T>`.
package enum ScanReport {
    /// The scan as one line of JSON (without a final newline).
    package static func json(_ result: ScanResult) -> String {
        var out = "{\"handlers\":["
        for (index, handler) in sortedHandlers(result).enumerated() {
            if index > 0 { out += "," }
            out += "{\"file\":\(string(handler.file)),\"line\":\(handler.line),\"id\":\(string(handler.id))"
            out += ",\"type\":\(handler.type.map(string) ?? "null"),\"name\":\(string(handler.name))"
            out += ",\"kind\":\(string(handler.kind.rawValue)),\"instance\":\(handler.instance.map(string) ?? "null")"
            out += ",\"async\":\(handler.isAsync),\"throws\":\(handler.isThrows),\"parameters\":["
            for (parameterIndex, parameter) in handler.parameters.enumerated() {
                if parameterIndex > 0 { out += "," }
                out += "{\"label\":\(string(parameter.label)),\"name\":\(string(parameter.name))"
                out += ",\"type\":\(string(parameter.type)),\"optional\":\(parameter.isOptional)"
                out += ",\"hasDefault\":\(parameter.hasDefault)"
                if !parameter.formerNames.isEmpty { out += ",\"formerNames\":\(strings(parameter.formerNames))" }
                out += "}"
            }
            out += "]"
            if !handler.formerIDs.isEmpty { out += ",\"formerIDs\":\(strings(handler.formerIDs))" }
            out += "}"
        }
        out += "],\"diagnostics\":["
        for (index, diagnostic) in sortedDiagnostics(result).enumerated() {
            if index > 0 { out += "," }
            out += "{\"file\":\(string(diagnostic.file)),\"line\":\(diagnostic.line)"
            out += ",\"severity\":\(string(diagnostic.severity.rawValue)),\"message\":\(string(diagnostic.message))}"
        }
        out += "]}"
        return out
    }

    /// The scan for people: one line per handler (`file:line: id  kind  signature`), then the diagnostics
    /// in the compiler's format, then a count. Ends with a newline.
    package static func text(_ result: ScanResult) -> String {
        var out = ""
        for handler in sortedHandlers(result) {
            let parameters = handler.parameters.map { parameter in
                let label = parameter.label == parameter.name ? parameter.name : "\(parameter.label) \(parameter.name)"
                return "\(label): \(parameter.type)\(parameter.hasDefault ? " = …" : "")"
            }
            var effects = handler.isAsync ? " async" : ""
            if handler.isThrows { effects += " throws" }
            var kind = handler.kind.rawValue
            if let instance = handler.instance { kind += " (instance: \(instance))" }
            let function = [handler.type, handler.name].compactMap { $0 }.joined(separator: ".")
            let former = handler.formerIDs.isEmpty ? "" : " (formerly \(handler.formerIDs.joined(separator: ", ")))"
            out +=
                "\(handler.file):\(handler.line): \(handler.id)\(former)  \(kind)  \(function)(\(parameters.joined(separator: ", ")))\(effects)\n"
        }
        for diagnostic in sortedDiagnostics(result) {
            out += diagnostic.compilerFormatted + "\n"
        }
        let errors = result.diagnostics.filter { $0.severity == .error }.count
        let count = result.handlers.count
        out += "\(count) handler\(count == 1 ? "" : "s"), \(errors) error\(errors == 1 ? "" : "s")\n"
        return out
    }

    static func sortedHandlers(_ result: ScanResult) -> [HandlerDeclaration] {
        result.handlers.enumerated().sorted { lhs, rhs in
            let (a, b) = (lhs.element, rhs.element)
            if a.file != b.file { return a.file < b.file }
            if a.line != b.line { return a.line < b.line }
            if a.column != b.column { return a.column < b.column }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    static func sortedDiagnostics(_ result: ScanResult) -> [ScanDiagnostic] {
        result.diagnostics.enumerated().sorted { lhs, rhs in
            let (a, b) = (lhs.element, rhs.element)
            if a.file != b.file { return a.file < b.file }
            if a.line != b.line { return a.line < b.line }
            if a.column != b.column { return a.column < b.column }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    /// `texts` as a JSON array of strings.
    static func strings(_ texts: [String]) -> String {
        "[" + texts.map(string).joined(separator: ",") + "]"
    }

    /// `text` as a JSON string literal.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
