import Foundation

/// The C headers to read and how to preprocess them (like a C target's compiler flags).
package struct CHeaderSources: Sendable, Hashable {
    /// The header files to read. They are parsed together, as one translation unit that includes each
    /// in turn (sorted by path), so they must be compatible with each other, as a C module's are.
    package var headers: [String]
    /// Directories searched by `#include` (`-I`).
    package var includeDirectories: [String]
    /// Preprocessor definitions, each `NAME` or `NAME=VALUE` (`-D`).
    package var defines: [String]
    /// Further clang arguments, passed last (e.g. `-isysroot`, `-target`).
    package var extraArguments: [String]
    /// The language the headers are parsed as. Defaults to what Swift's importer uses on this platform,
    /// so that the model matches what Swift sees (this matters for `NS_ENUM`: Apple's macros expand to
    /// an enum with a fixed underlying type only in Objective-C, and to a plain integer typedef in C).
    package var language: CHeaderLanguage

    package init(
        headers: [String], includeDirectories: [String] = [], defines: [String] = [],
        extraArguments: [String] = [], language: CHeaderLanguage = .swiftImporterDefault
    ) {
        self.headers = headers
        self.includeDirectories = includeDirectories
        self.defines = defines
        self.extraArguments = extraArguments
        self.language = language
    }

    /// The headers of a C module: every `.h` file under its include directories (recursively, sorted),
    /// which are also the `#include` search path. This is what a SwiftPM C target's `include/` holds.
    /// - Throws: ``CHeaderReaderError/includeDirectoryNotFound(_:)`` for a directory that does not exist.
    package static func module(
        includeDirectories: [String], defines: [String] = [], extraArguments: [String] = [],
        language: CHeaderLanguage = .swiftImporterDefault
    )
        throws(CHeaderReaderError) -> CHeaderSources
    {
        var headers: [String] = []
        for directory in includeDirectories {
            guard FileSystem.isDirectory(directory) else {
                throw .includeDirectoryNotFound(directory)
            }
            headers += FileSystem.files(under: directory, recursive: true).filter { $0.hasSuffix(".h") }
        }
        return CHeaderSources(
            headers: Array(Set(headers)).sorted(), includeDirectories: includeDirectories,
            defines: defines, extraArguments: extraArguments, language: language)
    }
}

/// The language C headers are parsed as.
package enum CHeaderLanguage: String, Sendable, Hashable {
    /// C (`-x c -std=gnu11`), what Swift's importer uses where there is no Objective-C interop (Linux).
    case c
    /// Objective-C (`-x objective-c -std=gnu11`), what Swift's importer uses on Apple platforms.
    case objectiveC

    /// The mode Swift's importer parses C headers in on this platform.
    package static var swiftImporterDefault: CHeaderLanguage {
        #if canImport(Darwin)
        return .objectiveC
        #else
        return .c
        #endif
    }

    /// The extension of the in-memory main file that includes the headers.
    var fileExtension: String {
        switch self {
        case .c: "c"
        case .objectiveC: "m"
        }
    }

    var clangArguments: [String] {
        switch self {
        case .c: ["-x", "c", "-std=gnu11"]
        case .objectiveC: ["-x", "objective-c", "-std=gnu11"]
        }
    }
}
