import Foundation

/// The rule that produced a libclang candidate path.
package enum LibClangSource: String, Sendable, Hashable {
    /// Given explicitly (API parameter or command-line option).
    case explicit
    /// The `HANDLERKIT_LIBCLANG` environment variable.
    case environment
    /// The running Swift toolchain's own `usr/lib/libclang`.
    case toolchain
    /// A system installation, e.g. Debian's `libclang-dev` (`/usr/lib/llvm-14/lib/libclang.so`).
    case system
    /// Xcode or the Command Line Tools on macOS.
    case xcode
}

/// One path where libclang may be.
package struct LibClangCandidate: Sendable, Hashable {
    package var path: String
    package var source: LibClangSource
    /// True when `path` is a glob pattern that matched nothing (kept so errors can list it).
    package var isUnmatchedPattern: Bool

    package init(path: String, source: LibClangSource, isUnmatchedPattern: Bool = false) {
        self.path = path
        self.source = source
        self.isUnmatchedPattern = isUnmatchedPattern
    }
}

/// Where to look for libclang, in order:
///
/// 1. an explicit path (a file, or a directory holding `libclang.so`/`libclang.dylib`) — when given,
///    it is the only candidate, so a wrong path is reported rather than silently replaced;
/// 2. otherwise `HANDLERKIT_LIBCLANG` when set (the only candidate too, for the same reason);
/// 3. otherwise the Swift toolchain's own `usr/lib/libclang` (found from `swift`/`swiftc` on `PATH`,
///    symbolic links resolved), then the system's (`/usr/lib/llvm-*/lib/libclang.so`, newest first, …),
///    then, on macOS, Xcode's (`xcrun --find clang` → `../lib/libclang.dylib`, then the default paths).
package struct LibClangLocator: Sendable {
    /// The environment variable that names libclang's path.
    package static let environmentVariable = "HANDLERKIT_LIBCLANG"

    /// An explicit path, taking precedence over everything else.
    package var explicitPath: String?
    /// The environment consulted for `HANDLERKIT_LIBCLANG` and `PATH`.
    package var environment: [String: String]

    package init(
        explicitPath: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.explicitPath = explicitPath
        self.environment = environment
    }

    #if os(macOS)
    static let libraryFileName = "libclang.dylib"
    #elseif os(Windows)
    static let libraryFileName = "libclang.dll"
    #else
    static let libraryFileName = "libclang.so"
    #endif

    /// The candidate paths, in search order, without duplicates.
    package func candidates() -> [LibClangCandidate] {
        if let explicitPath, !explicitPath.isEmpty {
            return [LibClangCandidate(path: Self.libraryPath(explicitPath), source: .explicit)]
        }
        if let fromEnvironment = environment[Self.environmentVariable], !fromEnvironment.isEmpty {
            return [LibClangCandidate(path: Self.libraryPath(fromEnvironment), source: .environment)]
        }
        var result: [LibClangCandidate] = []
        var seen: Set<String> = []
        for candidate in toolchainCandidates() + systemCandidates() + xcodeCandidates()
        where seen.insert(candidate.path).inserted {
            result.append(candidate)
        }
        return result
    }

    /// A directory stands for the library file inside it.
    static func libraryPath(_ path: String) -> String {
        FileSystem.isDirectory(path) ? (path as NSString).appendingPathComponent(libraryFileName) : path
    }

    /// `<toolchain>/usr/bin/swift` → `<toolchain>/usr/lib/libclang.so`.
    func toolchainCandidates() -> [LibClangCandidate] {
        let searchPath = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        var result: [LibClangCandidate] = []
        for tool in ["swift", "swiftc"] {
            for directory in searchPath where !directory.isEmpty {
                let toolPath = (directory as NSString).appendingPathComponent(tool)
                guard FileSystem.isExecutable(toolPath) else { continue }
                let binDirectory = (FileSystem.resolvingSymlinks(toolPath) as NSString).deletingLastPathComponent
                let usrDirectory = (binDirectory as NSString).deletingLastPathComponent
                let library = ((usrDirectory as NSString).appendingPathComponent("lib") as NSString)
                    .appendingPathComponent(Self.libraryFileName)
                result.append(LibClangCandidate(path: library, source: .toolchain))
                break
            }
        }
        return result
    }

    func systemCandidates() -> [LibClangCandidate] {
        #if os(Linux)
        // Debian/Ubuntu: libclang-dev installs /usr/lib/llvm-N/lib/libclang.so (libclang1-N: .so.1).
        let versions = FileSystem.entries(of: "/usr/lib", withPrefix: "llvm-")
            .compactMap { name -> (Int, String)? in
                Int(name.dropFirst("llvm-".count)).map { ($0, name) }
            }
            .sorted { $0.0 > $1.0 }
            .map(\.1)
        var result: [LibClangCandidate] = []
        if versions.isEmpty {
            result.append(
                LibClangCandidate(
                    path: "/usr/lib/llvm-*/lib/libclang.so", source: .system,
                    isUnmatchedPattern: true))
        }
        for name in versions {
            result.append(LibClangCandidate(path: "/usr/lib/\(name)/lib/libclang.so", source: .system))
            result.append(LibClangCandidate(path: "/usr/lib/\(name)/lib/libclang.so.1", source: .system))
        }
        // Fedora, Arch, and installations from source.
        for path in ["/usr/lib64/libclang.so", "/usr/lib/libclang.so", "/usr/local/lib/libclang.so"] {
            result.append(LibClangCandidate(path: path, source: .system))
        }
        return result
        #elseif os(macOS)
        return ["/opt/homebrew/opt/llvm/lib/libclang.dylib", "/usr/local/opt/llvm/lib/libclang.dylib"]
            .map { LibClangCandidate(path: $0, source: .system) }
        #else
        return []
        #endif
    }

    func xcodeCandidates() -> [LibClangCandidate] {
        #if os(macOS)
        var result: [LibClangCandidate] = []
        if let clang = Self.run("/usr/bin/xcrun", ["--find", "clang"]) {
            let binDirectory = (clang as NSString).deletingLastPathComponent
            let library =
                (((binDirectory as NSString).deletingLastPathComponent as NSString)
                .appendingPathComponent("lib") as NSString).appendingPathComponent(Self.libraryFileName)
            result.append(LibClangCandidate(path: library, source: .xcode))
        }
        result.append(
            LibClangCandidate(
                path:
                    "/Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/lib/libclang.dylib",
                source: .xcode))
        result.append(
            LibClangCandidate(
                path: "/Library/Developer/CommandLineTools/usr/lib/libclang.dylib",
                source: .xcode))
        return result
        #else
        return []
        #endif
    }

    /// How to get libclang on this platform, for the "not found" error.
    package static var installHint: String {
        #if os(macOS)
        return "Install Xcode or the Command Line Tools (xcode-select --install), or set \(environmentVariable) "
            + "to the path of libclang.dylib."
        #else
        return "Install it with `apt-get install libclang-dev` on Debian/Ubuntu (`dnf install clang-devel` on "
            + "Fedora), use a Swift toolchain that ships usr/lib/libclang.so, or set \(environmentVariable) to "
            + "the path of libclang.so."
        #endif
    }

    #if os(macOS)
    /// Runs a tool and returns its first output line, or nil when it fails.
    static func run(_ executable: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first
        else { return nil }
        return String(line)
    }
    #endif
}
