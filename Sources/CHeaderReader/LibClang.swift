import CLibClang
import Foundation

/// A loaded libclang. Loaded libraries stay loaded for the life of the process (LLVM cannot be unloaded
/// reliably), and are shared: loading the same path twice returns the same instance.
final class LibClang: @unchecked Sendable {
    // @unchecked: `handle` points to an immutable table of function pointers filled in once by
    // hk_libclang_open; libclang's functions are safe to call from several threads as long as each
    // thread uses its own index and translation unit, which the reader does.
    let handle: OpaquePointer
    let info: LibClangInfo
    /// The directory of clang's builtin headers that belongs to this libclang, when found.
    let resourceDirectory: String?

    private init(handle: OpaquePointer, path: String) {
        self.handle = handle
        let version = Self.take(hk_clang_version(handle))
        self.info = LibClangInfo(path: path, version: version)
        self.resourceDirectory = Self.resourceDirectory(library: path, version: version)
    }

    /// `<libdir>/clang/<version>` next to the library (or next to the file its symbolic links lead to)
    /// that holds the builtin headers, preferring the version libclang reports.
    static func resourceDirectory(library path: String, version: String) -> String? {
        let major =
            version.range(of: "version ").map { range in
                String(version[range.upperBound...].prefix { $0.isNumber })
            } ?? ""
        let libraryDirectories = [path, FileSystem.resolvingSymlinks(path)]
            .map { ($0 as NSString).deletingLastPathComponent }
        var found: [String] = []
        for directory in libraryDirectories {
            let clangDirectory = (directory as NSString).appendingPathComponent("clang")
            for entry in FileSystem.entries(of: clangDirectory, withPrefix: "") {
                let candidate = (clangDirectory as NSString).appendingPathComponent(entry)
                if FileSystem.isFile(candidate + "/include/stddef.h") {
                    found.append(candidate)
                }
            }
        }
        let matching = found.first { candidate in
            let name = (candidate as NSString).lastPathComponent
            return !major.isEmpty && (name == major || name.hasPrefix(major + "."))
        }
        return matching ?? (found.count == 1 ? found.first : nil)
    }

    /// Copies and frees a string returned by the C wrappers.
    static func take(_ string: UnsafeMutablePointer<CChar>?) -> String {
        guard let string else { return "" }
        defer { hk_free(string) }
        return String(cString: string)
    }

    private static let cache = LoadedLibraries()

    /// Loads the first candidate that loads, or throws the list of what was tried.
    static func load(from locator: LibClangLocator) throws(CHeaderReaderError) -> LibClang {
        var attempts: [LibClangAttempt] = []
        for candidate in locator.candidates() {
            if candidate.isUnmatchedPattern {
                attempts.append(
                    LibClangAttempt(
                        path: candidate.path, source: candidate.source,
                        failure: "no match"))
                continue
            }
            guard FileSystem.isFile(candidate.path) else {
                attempts.append(
                    LibClangAttempt(
                        path: candidate.path, source: candidate.source,
                        failure: "not found"))
                continue
            }
            switch cache.load(candidate.path, opener: open) {
            case .success(let library):
                return library
            case .failure(let message):
                attempts.append(
                    LibClangAttempt(
                        path: candidate.path, source: candidate.source,
                        failure: message.text))
            }
        }
        throw .libclangNotFound(tried: attempts, installHint: LibClangLocator.installHint)
    }

    private static func open(_ path: String) -> Result<LibClang, LoadFailure> {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let handle = hk_libclang_open(path, &errorMessage) else {
            return .failure(LoadFailure(text: take(errorMessage)))
        }
        return .success(LibClang(handle: handle, path: path))
    }
}

struct LoadFailure: Error, Sendable {
    var text: String
}

/// The process-wide table of libraries loaded so far (and of paths that failed to load).
private final class LoadedLibraries: @unchecked Sendable {
    // @unchecked: every access to `libraries` holds `lock`.
    private let lock = NSLock()
    private var libraries: [String: Result<LibClang, LoadFailure>] = [:]

    func load(_ path: String, opener: (String) -> Result<LibClang, LoadFailure>) -> Result<LibClang, LoadFailure> {
        lock.lock()
        defer { lock.unlock() }
        if let known = libraries[path] { return known }
        let result = opener(path)
        libraries[path] = result
        return result
    }
}
