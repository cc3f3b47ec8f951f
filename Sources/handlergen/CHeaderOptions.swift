import CHeaderReader
import Foundation
import HandlerGenerator
import HandlerScanner

/// The options that let `generate` and `review` convert C types: where the headers of the module's C
/// dependencies are, and which libclang reads them.
struct CHeaderOptions {
    static let headerDirectoryOption = OptionSpec(
        name: "c-header-directory", kind: .value(placeholder: "directory"), isRepeatable: true,
        help: "A public header directory of a C module the sources import (repeatable), e.g. Sources/CPoints/include.",
        discussion:
            "Handler parameter types declared there as C structs or enums get a Codable conformance in the generated file, which imports the module (named by the directory's module.modulemap, else by the folder holding include/)."
    )
    static let libclangOption = OptionSpec(
        name: "libclang", kind: .value(placeholder: "path"),
        help:
            "The libclang to read C headers with (file or directory). Default: $HANDLERKIT_LIBCLANG, then the Swift toolchain's, then the system's."
    )
    static let options = [headerDirectoryOption, libclangOption]

    var headerDirectories: [String]
    var libclang: String?

    init(_ arguments: CommandLineArguments) {
        headerDirectories = arguments.allValues(of: Self.headerDirectoryOption)
        libclang = arguments.value(of: Self.libclangOption)
    }

    /// The C types `scan`'s handlers bind. Each directory's headers are read on their own, and only when
    /// a parameter type name that can be a C type occurs in them: libclang is not loaded otherwise (and
    /// never without header directories).
    /// - Throws: `CHeaderReaderError` (missing directory, libclang not found, libclang failure).
    func conversions(for scan: ScanResult) throws(CHeaderReaderError) -> CTypeConversions {
        guard !headerDirectories.isEmpty else { return .none }
        let names = CTypeConversions.candidateNames(in: scan)
        guard !names.isEmpty else { return .none }
        let model = try CHeaderReader(libclangPath: libclang).read(types: names, fromModules: headerDirectories)
        let imports = model.declarations.compactMap { declaration in
            declaration.location.flatMap {
                CModuleName.module(declaring: $0.file, headerDirectories: headerDirectories)
            }
        }
        return CTypeConversions(model: model, imports: imports)
    }
}

/// The Swift name of the C module whose public header directory holds a header.
enum CModuleName {
    /// The module of the first of `headerDirectories` that contains `file`, or nil when none does.
    static func module(declaring file: String, headerDirectories: [String]) -> String? {
        let file = URL(fileURLWithPath: file).standardizedFileURL.resolvingSymlinksInPath().path
        for directory in headerDirectories {
            let root = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath()
            if file.hasPrefix(root.path + "/") { return module(of: root) }
        }
        return nil
    }

    /// The module a header directory belongs to: the `module` its module map declares, else the folder
    /// holding `include/` (a SwiftPM C target), else the folder itself, as a C identifier.
    static func module(of directory: URL) -> String {
        for name in ["module.modulemap", "module.map"] {
            if let text = try? String(contentsOf: directory.appending(path: name), encoding: .utf8),
                let declared = declaredModule(in: text)
            {
                return declared
            }
        }
        let folder = directory.lastPathComponent == "include" ? directory.deletingLastPathComponent() : directory
        return identifier(folder.lastPathComponent)
    }

    /// The name after `module` (optionally `explicit`/`framework`) in a module map.
    static func declaredModule(in text: String) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "{" }).map(String.init)
        guard let index = words.firstIndex(of: "module"), index + 1 < words.count else { return nil }
        let name = words[index + 1]
        return name.isEmpty ? nil : name
    }

    /// A target name as SwiftPM makes it a module name: non-identifier characters become `_`.
    static func identifier(_ name: String) -> String {
        var result = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        if result.first?.isNumber ?? true { result = "_" + result }
        return result
    }
}
