import Foundation
import HandlerScanner

/// A committed baseline file (`.handlers-baseline.json`), read for the build's check: the manifest, and
/// where in the file each handler is, for reporting a handler that no longer exists.
package struct Baseline: Sendable {
    /// The file as given (diagnostics name it).
    package var file: String
    package var manifest: HandlerManifest
    /// The 1-based line of each handler's `"id"` member.
    var lines: [String: Int]
    /// The 1-based line of the `"module"` member.
    var moduleLine = 1

    /// Reads the baseline at `path`.
    /// - Throws: `GeneratorError` at the file (and line, where known) when it cannot be read or is not a
    ///   baseline: not JSON, a missing or mistyped member, an unknown rule or severity.
    package static func read(path: String) throws(GeneratorError) -> Baseline {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw failure(
                path, 1,
                "cannot read the handler baseline; check that it is readable, or delete it to turn the check off")
        }
        return try parse(data, file: path)
    }

    /// Parses baseline JSON `data`, naming `file` in diagnostics.
    package static func parse(_ data: Data, file: String) throws(GeneratorError) -> Baseline {
        let text = String(decoding: data, as: UTF8.self)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            let index = (error as NSError).userInfo["NSJSONSerializationErrorIndex"] as? Int
            throw failure(
                file, index.map { line(ofOffset: $0, in: data) } ?? 1,
                "the handler baseline is not valid JSON; rewrite it with `swift package --allow-writing-to-package-directory update-handler-baseline`"
            )
        }
        guard let root = object as? [String: Any] else {
            throw failure(file, 1, "the handler baseline must be a JSON object")
        }
        guard root["format"] as? Int == HandlerManifest.formatVersion else {
            throw failure(
                file, line(ofKey: "format", in: text),
                "the handler baseline has format \(root["format"].map { "\($0)" } ?? "(missing)"); this HandlerKit reads format \(HandlerManifest.formatVersion): rewrite it with `swift package --allow-writing-to-package-directory update-handler-baseline`"
            )
        }
        guard let module = root["module"] as? String else { throw missing("module", "a string", file, text) }
        var rules = HandlerManifest.defaultRules
        if let ruleValues = root["rules"] {
            guard let ruleObject = ruleValues as? [String: Any] else { throw missing("rules", "an object", file, text) }
            for (name, value) in ruleObject.sorted(by: { $0.key < $1.key }) {
                let at = line(ofKey: name, in: text)
                guard let rule = EvolutionRule(rawValue: name) else {
                    throw failure(
                        file, at,
                        "unknown rule '\(name)' in the handler baseline; the rules are "
                            + EvolutionRule.allCases.sorted().map(\.rawValue).joined(separator: ", "))
                }
                guard let word = value as? String, let severity = EvolutionSeverity(rawValue: word) else {
                    throw failure(file, at, "rule '\(name)' must be \"error\", \"warning\" or \"ignore\"")
                }
                rules[rule] = severity
            }
        }
        guard let handlerValues = root["handlers"] as? [Any] else { throw missing("handlers", "an array", file, text) }
        var handlers: [HandlerManifest.Handler] = []
        var lines: [String: Int] = [:]
        for value in handlerValues {
            guard let entry = value as? [String: Any], let id = entry["id"] as? String,
                let function = entry["function"] as? String, let formerIDs = entry["formerIDs"] as? [String],
                let parameterValues = entry["parameters"] as? [Any]
            else {
                throw failure(
                    file, line(ofKey: "handlers", in: text),
                    "each handler of the baseline needs \"id\", \"function\", \"formerIDs\" and \"parameters\"")
            }
            let at = line(ofID: id, in: text)
            var parameters: [HandlerManifest.Parameter] = []
            for parameterValue in parameterValues {
                guard let parameter = parameterValue as? [String: Any], let name = parameter["name"] as? String,
                    let formerNames = parameter["formerNames"] as? [String], let type = parameter["type"] as? String,
                    let mandatory = parameter["mandatory"] as? Bool, parameter["bindable"] != nil
                else {
                    throw failure(
                        file, at,
                        "each parameter of handler '\(id)' in the baseline needs \"name\", "
                            + "\"formerNames\", \"type\", \"mandatory\" and \"bindable\"")
                }
                parameters.append(
                    HandlerManifest.Parameter(
                        name: name, formerNames: formerNames, type: type, isMandatory: mandatory,
                        isBindable: parameter["bindable"] as? Bool))
            }
            handlers.append(
                HandlerManifest.Handler(id: id, function: function, formerIDs: formerIDs, parameters: parameters))
            lines[id] = at
        }
        return Baseline(
            file: file, manifest: HandlerManifest(module: module, rules: rules, handlers: handlers), lines: lines,
            moduleLine: line(ofKey: "module", in: text))
    }

    private static func failure(_ file: String, _ line: Int, _ message: String) -> GeneratorError {
        GeneratorError(diagnostics: [
            ScanDiagnostic(file: file, line: line, column: 1, severity: .error, message: message)
        ])
    }

    private static func missing(_ key: String, _ kind: String, _ file: String, _ text: String) -> GeneratorError {
        failure(file, line(ofKey: key, in: text), "the handler baseline needs \"\(key)\", \(kind)")
    }

    /// The line of the first `"key":` in `text`, or 1.
    static func line(ofKey key: String, in text: String) -> Int {
        lineNumber(of: ScanReport.string(key) + ":", in: text) ?? 1
    }

    /// The line of `"id": "<id>"` in `text` (as `HandlerManifest.json` writes it), or 1.
    static func line(ofID id: String, in text: String) -> Int {
        lineNumber(of: "\"id\": " + ScanReport.string(id), in: text) ?? 1
    }

    private static func lineNumber(of needle: String, in text: String) -> Int? {
        guard let range = text.range(of: needle) else { return nil }
        return text[..<range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    }

    private static func line(ofOffset offset: Int, in data: Data) -> Int {
        data.prefix(offset).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }
}
