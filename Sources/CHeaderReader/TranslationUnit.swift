import CLibClang
import Foundation

/// One parse of a set of headers: the libclang index and translation unit, disposed of together.
final class TranslationUnit {
    let clang: Clang
    private let index: UnsafeMutableRawPointer
    private let unit: UnsafeMutableRawPointer

    /// CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing.
    private static let options: UInt32 = 0x40 | 0x200

    /// Parses `sources.headers` as one translation unit: an in-memory main file including each header.
    init(clang: Clang, sources: CHeaderSources) throws(CHeaderReaderError) {
        self.clang = clang
        let mainFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("HandlerKitCTypes-\(UUID().uuidString).\(sources.language.fileExtension)").path
        let contents = sources.headers.map { "#include \"\(Self.escape($0))\"\n" }.joined()
        let arguments = Self.arguments(for: sources, resourceDirectory: clang.library.resourceDirectory)
        guard let index = hk_clang_create_index(clang.library.handle) else {
            throw .parseFailed(code: -1, libclangPath: clang.library.info.path)
        }
        var unit: UnsafeMutableRawPointer?
        let code = Self.withCStrings(arguments) { argv in
            contents.withCString { text in
                hk_clang_parse(
                    clang.library.handle, index, mainFile, text, UInt(strlen(text)), argv,
                    Int32(arguments.count), Self.options, &unit)
            }
        }
        guard code == 0, let unit else {
            hk_clang_dispose_index(clang.library.handle, index)
            throw .parseFailed(code: Int(code), libclangPath: clang.library.info.path)
        }
        self.index = index
        self.unit = unit
    }

    deinit {
        hk_clang_dispose_translation_unit(clang.library.handle, unit)
        hk_clang_dispose_index(clang.library.handle, index)
    }

    var cursor: HKClangCursor { hk_clang_translation_unit_cursor(clang.library.handle, unit) }

    /// libclang's errors (warnings are left to the C compiler that builds the target).
    func errors() -> [CHeaderDiagnostic] {
        let count = hk_clang_diagnostic_count(clang.library.handle, unit)
        var result: [CHeaderDiagnostic] = []
        for index in 0..<count {
            let diagnostic = hk_clang_diagnostic(clang.library.handle, unit, index)
            defer { hk_clang_diagnostic_free(diagnostic) }
            guard diagnostic.severity >= DiagnosticSeverity.error else { continue }
            let message = diagnostic.message.map { String(cString: $0) } ?? "unknown error"
            let location = diagnostic.location.file.map {
                CSourceLocation(
                    file: String(cString: $0), line: Int(diagnostic.location.line),
                    column: Int(diagnostic.location.column))
            }
            result.append(CHeaderDiagnostic(severity: .error, message: message, location: location))
        }
        return result
    }

    static func arguments(for sources: CHeaderSources, resourceDirectory: String?) -> [String] {
        var arguments = sources.language.clangArguments
        // Some libclangs (the Swift toolchain's, for one) do not find their own builtin headers
        // (stdbool.h, stddef.h) unless told where they are.
        if let resourceDirectory, !sources.extraArguments.contains("-resource-dir") {
            arguments += ["-resource-dir", resourceDirectory]
        }
        for directory in sources.includeDirectories {
            arguments += ["-I", directory]
        }
        for define in sources.defines {
            arguments += ["-D", define]
        }
        #if os(macOS)
        if !sources.extraArguments.contains("-isysroot"),
            let sdk = LibClangLocator.run("/usr/bin/xcrun", ["--show-sdk-path"])
        {
            arguments += ["-isysroot", sdk]
        }
        #endif
        return arguments + sources.extraArguments
    }

    private static func escape(_ path: String) -> String {
        path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// Calls `body` with a C `argv` for `strings`, valid during the call.
    private static func withCStrings<R>(
        _ strings: [String],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R
    ) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
