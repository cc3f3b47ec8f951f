import HandlerScanner

/// Expands `@handler`: validates the declaration it is attached to with the project's scanner and
/// reports misuse as diagnostics at the declaration.
///
/// A valid handler expands to one peer, a private overload of the function whose parameter has the type
/// `_HandlerKitGeneratedFile`. The file the build plugin generates declares that type in the module;
/// without it the name resolves to HandlerKit's unavailable fallback, whose message says to add the
/// plugin. So a target that uses `@handler` without `HandlerKitPlugin` fails at the `@handler` line
/// rather than where generated members are used. The parameter's label names the module.
package struct HandlerMacroExpander: Sendable {
    /// The type name the macro declaration names in `#externalMacro(module:type:)`.
    package static let implementationTypeName = "HandlerMacro"

    package init() {}

    /// The diagnostics for one `expandAttachedMacro` request, positioned in the compiler's file.
    package func diagnostics(for request: AttachedMacroRequest) -> [PluginDiagnostic] {
        expansion(for: request).diagnostics
    }

    /// The peer declarations and diagnostics for one `expandAttachedMacro` request: no peer when the
    /// declaration has an error (the error is enough).
    package func expansion(for request: AttachedMacroRequest) -> (peers: [String], diagnostics: [PluginDiagnostic]) {
        let declaration = request.declSyntax
        let file = declaration.location.fileName
        let attributePosition = PluginDiagnostic.Position(
            fileName: request.attributeSyntax.location.fileName,
            offset: request.attributeSyntax.location.offset
                + TokenCursor.triviaLength(of: request.attributeSyntax.source)
        )
        guard request.macro.typeName == Self.implementationTypeName else {
            return (
                [],
                [
                    PluginDiagnostic(
                        message: "HandlerKitMacros has no macro type '\(request.macro.typeName)'; "
                            + "declare the macro with #externalMacro(module: \"HandlerKitMacros\", "
                            + "type: \"\(Self.implementationTypeName)\")",
                        severity: .error, position: attributePosition)
                ]
            )
        }

        let context =
            request.lexicalContext.map(DeclarationContextResolver.context(lexicalContext:))
            ?? DeclarationContextResolver.fallbackContext(declaration: declaration)
        // Snippets without a place (line 0) are scanned as if they started the file; positions stay
        // consistent because the same base is used to map them back.
        let line = max(1, declaration.location.line)
        let column = max(1, declaration.location.column)
        let result = SourceScanner.scanDeclaration(
            declaration.source, file: file, line: line, column: column, context: context)

        let map = SourcePositionMap(
            text: declaration.source, offset: declaration.location.offset, line: line, column: column)
        let snippetEnd = declaration.location.offset + declaration.source.utf8.count
        var diagnostics = result.diagnostics.map { convert($0, file: file, map: map, snippetEnd: snippetEnd) }
        if diagnostics.isEmpty && result.handlers.isEmpty {
            diagnostics.append(
                PluginDiagnostic(
                    message: "'@handler' can only be attached to a function",
                    severity: .error, position: attributePosition))
        }
        guard !result.hasErrors, let handler = result.handlers.first else { return ([], diagnostics) }
        return ([Self.pluginCheck(for: handler, request: request)], diagnostics)
    }

    /// The name of the type the generated file declares and HandlerKit's fallback is marked unavailable.
    package static let generatedFileTypeName = "_HandlerKitGeneratedFile"

    /// The peer that only compiles where the build plugin's file is part of the module, e.g.
    /// `private static func `enabled`(_handlerKitPluginOf_App_1a2b3c4d: _HandlerKitGeneratedFile) {}`.
    /// The label's hash of the compiler's discriminator keeps overloads' peers apart.
    static func pluginCheck(for handler: HandlerDeclaration, request: AttachedMacroRequest) -> String {
        let fileID = request.declSyntax.location.fileID
        let module = fileID.split(separator: "/").first.map(String.init) ?? ""
        let moduleWord = module.unicodeScalars.allSatisfy { $0.properties.isXIDContinue } ? module : "module"
        var hash: UInt32 = 2_166_136_261
        for byte in (request.discriminator + fileID).utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        let digits = String(hash, radix: 16)
        let label = "_handlerKitPluginOf_\(moduleWord)_\(String(repeating: "0", count: 8 - digits.count))\(digits)"
        let modifiers = handler.kind == .global ? "private" : "private static"
        let name = handler.name.hasPrefix("`") ? handler.name : "`\(handler.name)`"
        return "\(modifiers) func \(name)(\(label): \(generatedFileTypeName)) {}"
    }

    /// Converts a scanner diagnostic (file line and column) into the protocol's offsets.
    private func convert(
        _ diagnostic: ScanDiagnostic, file: String, map: SourcePositionMap, snippetEnd: Int
    ) -> PluginDiagnostic {
        let fixIts = diagnostic.fixIts.map { fixIt -> PluginDiagnostic.FixIt in
            let start = map.offset(line: fixIt.line, column: fixIt.column)
            let end = min(start + max(0, fixIt.length), snippetEnd)
            return PluginDiagnostic.FixIt(
                message: fixIt.message,
                changes: [
                    .init(
                        range: .init(fileName: file, startOffset: start, endOffset: end),
                        newText: fixIt.replacement)
                ])
        }
        return PluginDiagnostic(
            message: diagnostic.message,
            severity: PluginDiagnostic.Severity(diagnostic.severity),
            position: .init(fileName: file, offset: map.offset(line: diagnostic.line, column: diagnostic.column)),
            fixIts: fixIts)
    }
}

extension PluginDiagnostic.Severity {
    init(_ severity: ScanDiagnostic.Severity) {
        switch severity {
        case .error: self = .error
        case .warning: self = .warning
        case .note: self = .note
        }
    }
}
