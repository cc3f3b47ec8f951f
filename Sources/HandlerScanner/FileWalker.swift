/// Expands the paths given to `SourceScanner.scan(paths:relativeTo:)` into the files to scan.
///
/// This runs for every file of a target on every generation, so a walked file costs one `String` (its
/// path): its normalized form is kept as the shared normalized directory plus an offset into the path,
/// sorting moves indices, and path spellings are compared for duplicates only when several paths are
/// given (one directory's walk cannot name a file twice).
enum FileWalker {
    /// A file to scan, or a path that could not be used, as spelled from the paths given.
    struct Entry {
        /// The path as spelled from the paths given.
        var path: String
        /// `false` for a path that does not exist or cannot be listed.
        var isFile: Bool
        /// `false` for a `.swift` path given directly and taken for a file without asking the file
        /// system: reading it tells (see `files(in:currentDirectory:trustingSwiftNames:)`).
        var isVerified = true
        /// For a file found in a directory: its normalized directory (`PathName.normalized`, ending in
        /// `/`), its path's UTF-8 offset where its path inside that directory starts. For a path
        /// given directly: its normalized form and `nil`.
        fileprivate var normalizedBase: String
        fileprivate var insideStart: Int?

        /// The normalized form of `path` (`PathName.normalized`).
        var normalized: String {
            guard let insideStart else { return normalizedBase }
            return normalizedBase + inside(from: insideStart)
        }

        fileprivate func inside(from start: Int) -> String {
            String(decoding: path.utf8.dropFirst(start), as: UTF8.self)
        }
    }

    /// Files given directly are scanned whatever their extension; directories are searched recursively
    /// for `.swift` files, skipping hidden files and folders (such as `.build`) and not following links
    /// to directories. A file is named by the path given plus its path inside the directory
    /// (`Sources/X/a.swift`, not an absolute path). Sorted by path, without duplicates.
    ///
    /// With `trustingSwiftNames`, a path given directly whose name ends in `.swift` is taken for a file
    /// without a `stat` (entries with `isVerified` false): the plugin names every file of a target, and
    /// opening the file tells anyway. The caller must classify the paths again without trusting when
    /// one of those turns out not to be a file, since a missing path or a directory is listed differently.
    static func files(in paths: [String], currentDirectory: String, trustingSwiftNames: Bool) -> [Entry] {
        var entries: [Entry] = []
        var missing: [Entry] = []
        for path in paths {
            let normalized = PathName.normalized(path, in: currentDirectory)
            if trustingSwiftNames, path.utf8.count > 6, path.utf8.reversed().starts(with: ".swift".utf8.reversed()) {
                entries.append(
                    Entry(path: path, isFile: true, isVerified: false, normalizedBase: normalized, insideStart: nil))
                continue
            }
            switch FileSystem.kind(of: path) {
            case .missing:
                missing.append(Entry(path: path, isFile: false, normalizedBase: normalized, insideStart: nil))
            case .other:
                entries.append(Entry(path: path, isFile: true, normalizedBase: normalized, insideStart: nil))
            case .directory:
                // Names inside the directory have no `.`, `..` or empty components, so a file's normalized
                // path is the directory's plus its path inside it.
                let directory = path.hasSuffix("/") ? path : path + "/"
                let base = normalized == "/" ? "/" : normalized + "/"
                let start = directory.utf8.count
                let listed = walk(directory) { file in
                    entries.append(Entry(path: file, isFile: true, normalizedBase: base, insideStart: start))
                }
                if !listed {
                    missing.append(Entry(path: path, isFile: false, normalizedBase: normalized, insideStart: nil))
                }
            }
        }
        if paths.count > 1 {
            // `./A.swift` and `A.swift` are one file: the first spelling is kept.
            var seen: Set<String> = []
            entries = entries.filter { seen.insert($0.normalized).inserted }
        }
        let all = entries + missing
        let order = all.indices.sorted { all[$0].path < all[$1].path || (all[$0].path == all[$1].path && $0 < $1) }
        return order.map { all[$0] }
    }

    /// Calls `add` with the path of each `.swift` file under `directory` (which ends with `/`), depth
    /// first; whether `directory` itself could be listed.
    @discardableResult
    private static func walk(_ directory: String, _ add: (String) -> Void) -> Bool {
        guard let entries = FileSystem.entries(of: directory) else { return false }
        for entry in entries where !entry.name.hasPrefix(".") {
            if entry.isDirectory {
                walk(directory + entry.name + "/", add)
            } else if entry.name.hasSuffix(".swift") {
                let path = directory + entry.name
                // A link counts as the file it names; a link to a directory is not followed.
                if entry.isSymbolicLink, FileSystem.kind(of: path) == .directory { continue }
                add(path)
            }
        }
        return true
    }

    /// Names entries relative to a base directory.
    struct Namer {
        /// `base` normalized (see `PathName.normalized`), or `nil` to name every entry by its path.
        private let base: String?
        /// `base` ending with `/`.
        private let prefix: String

        init(base: String?) {
            self.base = base
            prefix = base.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? ""
        }

        /// `entry`'s path relative to the base when it lies inside it (its last component when it is
        /// the base); otherwise its path unchanged.
        func name(of entry: Entry) -> String {
            guard let base else { return entry.path }
            if let start = entry.insideStart, let first = entry.path.utf8.dropFirst(start).first, first < 0x80,
                entry.normalizedBase.utf8.elementsEqual(prefix.utf8)
            {
                // Found in a walk of the base itself: the path inside it, without building the whole
                // normalized path (when it starts with ASCII, so that no character spans the `/`).
                return entry.inside(from: start)
            }
            let normalized = entry.normalized
            if normalized == base { return PathName.lastComponent(of: entry.path) }
            if normalized.hasPrefix(prefix) { return String(normalized.dropFirst(prefix.count)) }
            return entry.path
        }
    }
}

/// Path spelling, done on the text alone (no file-system calls).
enum PathName {
    /// The absolute form of `path` (relative to `currentDirectory` unless it starts with `/`), with
    /// `.` and empty components removed and `..` applied: `./A.swift`, `A.swift` and `B/../A.swift`
    /// are one file.
    static func normalized(_ path: String, in currentDirectory: String) -> String {
        if isNormalized(path) { return path }
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

    /// Whether `path` is already its normalized form: absolute, without empty, `.` or `..` components
    /// and without a final `/` (as the plugin passes source files), so no new string is needed.
    private static func isNormalized(_ path: String) -> Bool {
        var utf8 = path.utf8[...]
        guard utf8.first == slash, utf8.count > 1, utf8.last != slash else { return false }
        while !utf8.isEmpty {
            utf8 = utf8.dropFirst()  // the `/` before a component
            let component = utf8.prefix { $0 != slash }
            let length = component.count
            if length == 0 || (length <= 2 && component.allSatisfy { $0 == dot }) { return false }
            utf8 = utf8.dropFirst(length)
        }
        return true
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
