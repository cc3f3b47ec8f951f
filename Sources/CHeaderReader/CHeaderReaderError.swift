/// Why C headers could not be read at all. (Problems inside headers are diagnostics, not errors.)
package enum CHeaderReaderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No usable libclang: every path tried, each with the reason it failed, and how to install one.
    case libclangNotFound(tried: [LibClangAttempt], installHint: String)
    /// A header file given to the reader does not exist.
    case headerNotFound(String)
    /// An include directory given to the reader does not exist.
    case includeDirectoryNotFound(String)
    /// libclang could not parse at all (it returned this `CXErrorCode`; 2 means it crashed).
    case parseFailed(code: Int, libclangPath: String)

    package var description: String {
        switch self {
        case .libclangNotFound(let tried, let installHint):
            let lines = tried.map { "  \($0.path) (\($0.source.rawValue)): \($0.failure)" }
            return (["libclang not found; HandlerKit needs it to read C headers. Tried:"] + lines + [installHint])
                .joined(separator: "\n")
        case .headerNotFound(let path):
            return "C header not found: \(path)"
        case .includeDirectoryNotFound(let path):
            return "include directory not found: \(path)"
        case .parseFailed(let code, let libclangPath):
            return "libclang (\(libclangPath)) failed to parse the headers (CXErrorCode \(code))"
        }
    }
}

/// One place HandlerKit looked for libclang, and why it was not used.
package struct LibClangAttempt: Sendable, Hashable {
    /// The path tried (a glob pattern when nothing matched it).
    package var path: String
    /// Which rule of the search produced it.
    package var source: LibClangSource
    /// Why it was not used: not found, or the loader's message.
    package var failure: String

    package init(path: String, source: LibClangSource, failure: String) {
        self.path = path
        self.source = source
        self.failure = failure
    }
}
