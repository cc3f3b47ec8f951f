import Foundation
import HandlerScanner
import MustacheRendering

/// The templates of `Templates/` and their rendering.
///
/// Where the texts come from: the generator reads the package's `Templates/*.mustache` when it runs,
/// found next to this source file (`#filePath`: SwiftPM and Xcode always build a package from a source
/// checkout, so the folder is there whenever `handlergen` runs on the machine that built it). An edited
/// template therefore changes the very next generation, with no rebuild: SwiftPM's pitfall that edited
/// resources do not trigger a rebuild (SPM#5982) does not apply. When the folder is absent (a relocated
/// binary), the copy compiled into `EmbeddedTemplates` is used; a test keeps that copy identical to the
/// folder (`HANDLERKIT_RECORD=1` rewrites it).
///
/// (Embedding through a build-tool plugin was tried first and dropped: `handlergen` is itself a tool of
/// the HandlerKit build plugin, and SwiftPM builds plugin tools without running the build-tool plugins of
/// their dependencies, so every build printed errors for the missing generated file.)
enum Templates {
    /// The template that renders a whole file (context: `FileContext`).
    static let file = "file"
    /// The template of a handler's registry entry and shim (context: `HandlerContext`).
    static let descriptor = "descriptor"
    /// The template of a handler's compiler-checked reference (context: `HandlerContext`).
    static let reference = "reference"
    /// The template of a handler's typed call, `call<Name>Handler(_:…)` (context: `HandlerContext`).
    static let call = "call"
    /// The `Codable` conformance of a C struct or enum a handler binds (context: `CTypeContext`).
    static let cType = "ctype"

    /// The package's `Templates/` folder, derived from this file's path at build time.
    static let sourceDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Templates", directoryHint: .isDirectory)

    /// The texts of `directory`'s `*.mustache` files by name without extension, or `nil` when the
    /// folder cannot be read or has none.
    static func texts(in directory: URL) -> [String: String]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return nil }
        var texts: [String: String] = [:]
        for name in names where name.hasSuffix(".mustache") {
            guard let data = FileManager.default.contents(atPath: directory.appending(path: name).path),
                let text = String(data: data, encoding: .utf8)
            else { return nil }
            texts[String(name.dropLast(".mustache".count))] = text
        }
        return texts.isEmpty ? nil : texts
    }

    /// The texts in use: the source folder's, else the embedded copy.
    static let current: [String: String] = texts(in: sourceDirectory) ?? EmbeddedTemplates.all

    /// The parsed templates by name. A template that does not parse is reported by `render`.
    private static let library: Result<[String: MustacheTemplate], GeneratorError> = {
        var library: [String: MustacheTemplate] = [:]
        for (name, text) in current.sorted(by: { $0.key < $1.key }) {
            do throws(MustacheError) {
                library[name] = try MustacheTemplate(parsing: text, named: "\(name).mustache")
            } catch {
                return .failure(
                    templateError(
                        "template does not parse: \(error.message)", file: "Templates/\(name).mustache",
                        line: error.line, column: error.column))
            }
        }
        return .success(library)
    }()

    /// `context` rendered through the template `name`.
    static func render(_ context: Any, template name: String) throws(GeneratorError) -> String {
        guard let template = try library.get()[name] else {
            throw templateError("template '\(name).mustache' is missing", file: "Templates", line: 1, column: 1)
        }
        return template.render(context)
    }

    private static func templateError(_ message: String, file: String, line: Int, column: Int) -> GeneratorError {
        GeneratorError(diagnostics: [
            ScanDiagnostic(file: file, line: line, column: column, severity: .error, message: message)
        ])
    }

    /// The Swift source of `EmbeddedTemplates.swift` for `texts`: one raw string literal per template,
    /// in name order, each with enough `#`s that no template text can end it or start an escape.
    static func embeddedSource(for texts: [String: String]) -> String {
        var swift = """
            // Generated from Templates/*.mustache — do not edit. Re-record with
            //     HANDLERKIT_RECORD=1 swift test --filter HandlerGeneratorTests
            // (a test fails while this copy differs from Templates/).

            /// The texts of `Templates/*.mustache`, keyed by file name without the extension: the fallback
            /// when the package's `Templates/` folder is not next to the sources (see `Templates`).
            enum EmbeddedTemplates {
                static let all: [String: String] = [

            """
        for (name, text) in texts.sorted(by: { $0.key < $1.key }) {
            var hashes = "#"
            while text.contains("\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
            swift +=
                "        \"\(SwiftSource.stringLiteralContent(name))\": \(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes),\n"
        }
        swift += "    ]\n}\n"
        return swift
    }
}
