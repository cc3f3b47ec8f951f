/// Expands the paths given to `SourceScanner.scan(paths:relativeTo:)` into the files to scan.
enum FileWalker {
    /// A file to scan, or a path that could not be used, as spelled from the paths given, with its
    /// normalized form (`PathName.normalized`).
    enum Entry {
        case file(path: String, normalized: String)
        case missing(path: String, normalized: String)

        var path: String {
            switch self {
            case .file(let path, _), .missing(let path, _): return path
            }
        }

        var normalized: String {
            switch self {
            case .file(_, let normalized), .missing(_, let normalized): return normalized
            }
        }
    }

    /// Files given directly are scanned whatever their extension; directories are searched recursively
    /// for `.swift` files, skipping hidden files and folders (such as `.build`) and not following links
    /// to directories. A file is named by the path given plus its path inside the directory
    /// (`Sources/X/a.swift`, not an absolute path). Sorted, without duplicates.
    static func files(in paths: [String], currentDirectory: String) -> [Entry] {
        var entries: [Entry] = []
        var seen: Set<String> = []  // normalized paths: `./A.swift` and `A.swift` are one file
        var missing: [Entry] = []
        for path in paths {
            let normalized = PathName.normalized(path, in: currentDirectory)
            switch FileSystem.kind(of: path) {
            case .missing:
                missing.append(.missing(path: path, normalized: normalized))
            case .other:
                if seen.insert(normalized).inserted { entries.append(.file(path: path, normalized: normalized)) }
            case .directory:
                guard FileSystem.entries(of: path) != nil else {
                    missing.append(.missing(path: path, normalized: normalized))
                    continue
                }
                // Names inside the directory have no `.`, `..` or empty components, so a file's normalized
                // path is the directory's plus its relative path.
                walk(path.hasSuffix("/") ? path : path + "/", normalized == "/" ? "/" : normalized + "/") { path, normalized in
                    if seen.insert(normalized).inserted { entries.append(.file(path: path, normalized: normalized)) }
                }
            }
        }
        return (entries + missing).sorted { $0.path < $1.path }
    }

    /// Calls `add` with each `.swift` file under `directory`, depth first; both spellings end with `/`.
    private static func walk(_ directory: String, _ normalized: String, _ add: (String, String) -> Void) {
        guard let entries = FileSystem.entries(of: directory) else { return }
        for entry in entries where !entry.name.hasPrefix(".") {
            if entry.isDirectory {
                walk(directory + entry.name + "/", normalized + entry.name + "/", add)
            } else if entry.name.hasSuffix(".swift") {
                let path = directory + entry.name
                // A link counts as the file it names; a link to a directory is not followed.
                if entry.isSymbolicLink, FileSystem.kind(of: path) == .directory { continue }
                add(path, normalized + entry.name)
            }
        }
    }

    /// `entry`'s path relative to `base` (normalized, see `PathName.normalized`) when it lies inside it
    /// (its last component when it is `base`); otherwise its path unchanged.
    static func relative(_ entry: Entry, toNormalized base: String?) -> String {
        guard let base else { return entry.path }
        if entry.normalized == base { return PathName.lastComponent(of: entry.path) }
        let prefix = base.hasSuffix("/") ? base : base + "/"
        if entry.normalized.hasPrefix(prefix) { return String(entry.normalized.dropFirst(prefix.count)) }
        return entry.path
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
