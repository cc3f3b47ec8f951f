/// Expands the paths given to `SourceScanner.scan(paths:relativeTo:)` into the files to scan.
enum FileWalker {
    /// A file to scan, or a path that could not be used.
    enum Entry {
        case file(path: String)
        case missing(path: String)

        var path: String {
            switch self {
            case .file(let path), .missing(let path): return path
            }
        }
    }

    /// Files given directly are scanned whatever their extension; directories are searched recursively
    /// for `.swift` files, skipping hidden files and folders (such as `.build`) and not following links
    /// to directories. A file is named by the path given plus its path inside the directory
    /// (`Sources/X/a.swift`, not an absolute path). Sorted, without duplicates.
    static func files(in paths: [String]) -> [Entry] {
        var files: [String] = []
        var seen: Set<String> = []  // normalized paths: `./A.swift` and `A.swift` are one file
        let currentDirectory = FileSystem.currentDirectory()
        func add(_ path: String) {
            if seen.insert(PathName.normalized(path, in: currentDirectory)).inserted { files.append(path) }
        }
        var missing: [String] = []
        for path in paths {
            switch FileSystem.kind(of: path) {
            case .missing:
                missing.append(path)
            case .other:
                add(path)
            case .directory:
                guard FileSystem.entries(of: path) != nil else {
                    missing.append(path)
                    continue
                }
                walk(path.hasSuffix("/") ? path : path + "/", add)
            }
        }
        let entries: [Entry] = files.map { .file(path: $0) } + missing.map { .missing(path: $0) }
        return entries.sorted { $0.path < $1.path }
    }

    /// Adds the `.swift` files under `directory` (spelled with a trailing `/`), depth first.
    private static func walk(_ directory: String, _ add: (String) -> Void) {
        guard let entries = FileSystem.entries(of: directory) else { return }
        for entry in entries where !entry.name.hasPrefix(".") {
            let path = directory + entry.name
            if entry.isDirectory {
                walk(path + "/", add)
            } else if entry.name.hasSuffix(".swift") {
                // A link counts as the file it names; a link to a directory is not followed.
                if entry.isSymbolicLink, FileSystem.kind(of: path) == .directory { continue }
                add(path)
            }
        }
    }

    /// `path` relative to `base` when it lies inside it (its last component when it is `base`);
    /// otherwise `path` unchanged. `base` is normalized once by the caller (`PathName.normalized`).
    static func relative(_ path: String, toNormalized base: String?, in currentDirectory: String) -> String {
        guard let base else { return path }
        let normalizedPath = PathName.normalized(path, in: currentDirectory)
        if normalizedPath == base { return PathName.lastComponent(of: path) }
        let prefix = base.hasSuffix("/") ? base : base + "/"
        if normalizedPath.hasPrefix(prefix) { return String(normalizedPath.dropFirst(prefix.count)) }
        return path
    }
}

/// Path spelling, done on the text alone (no file-system calls).
enum PathName {
    /// The absolute form of `path` (relative to `currentDirectory` unless it starts with `/`), with
    /// `.` and empty components removed and `..` applied: `./A.swift`, `A.swift` and `B/../A.swift`
    /// are one file.
    static func normalized(_ path: String, in currentDirectory: String) -> String {
        var output: [UInt8] = []  // "/component" after "/component"; empty for the root
        output.reserveCapacity(currentDirectory.utf8.count + path.utf8.count + 1)
        func append(_ text: String) {
            var utf8 = text.utf8[...]
            while !utf8.isEmpty {
                let component = utf8.prefix { $0 != slash }
                utf8 = utf8.dropFirst(component.count).drop { $0 == slash }
                switch component.count {
                case 0: continue
                case 1 where component.first == dot: continue
                case 2 where component.first == dot && component.last == dot:
                    output.removeSubrange((output.lastIndex(of: slash) ?? 0)...)
                default:
                    output.append(slash)
                    output.append(contentsOf: component)
                }
            }
        }
        if !path.hasPrefix("/") { append(currentDirectory) }
        append(path)
        return output.isEmpty ? "/" : String(decoding: output, as: UTF8.self)
    }

    private static let slash = UInt8(ascii: "/")
    private static let dot = UInt8(ascii: ".")

    /// The last component of `path`, ignoring trailing slashes (`a/b/` → `b`, `/` → `/`).
    static func lastComponent(of path: String) -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let last = components.last else { return path.isEmpty ? path : "/" }
        return String(last)
    }
}
