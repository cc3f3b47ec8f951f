import Foundation

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
    /// for `.swift` files, skipping hidden files and folders (such as `.build`). Sorted, without duplicates.
    static func files(in paths: [String]) -> [Entry] {
        var files: [String] = []
        var seen: Set<String> = []  // standardized paths: `./A.swift` and `A.swift` are one file
        func add(_ path: String) {
            if seen.insert(URL(fileURLWithPath: path).standardizedFileURL.path).inserted { files.append(path) }
        }
        var missing: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                missing.append(path)
                continue
            }
            guard isDirectory.boolValue else {
                add(path)
                continue
            }
            let root = URL(fileURLWithPath: path)
            guard
                let enumerator = manager.enumerator(
                    at: root, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey],
                    options: [.skipsHiddenFiles])
            else {
                missing.append(path)
                continue
            }
            let prefix = path.hasSuffix("/") ? path : path + "/"
            let rootPath = root.standardizedFileURL.path
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                let values = try? url.resourceValues(forKeys: [.isDirectoryKey])
                if values?.isDirectory == true { continue }
                // Keep the path spelled from the argument given (`Sources/X/a.swift`, not an absolute one).
                let full = url.standardizedFileURL.path
                if full.hasPrefix(rootPath + "/") {
                    add(prefix + String(full.dropFirst(rootPath.count + 1)))
                } else {
                    add(full)
                }
            }
        }
        let entries: [Entry] = files.map { .file(path: $0) } + missing.map { .missing(path: $0) }
        return entries.sorted { $0.path < $1.path }
    }

    /// `path` relative to `base` when it lies inside it; otherwise `path` unchanged.
    static func relative(_ path: String, to base: String?) -> String {
        guard let base, !base.isEmpty else { return path }
        let standardBase = URL(fileURLWithPath: base).standardizedFileURL.path
        let standardPath = URL(fileURLWithPath: path).standardizedFileURL.path
        if standardPath == standardBase { return URL(fileURLWithPath: path).lastPathComponent }
        let prefix = standardBase.hasSuffix("/") ? standardBase : standardBase + "/"
        if standardPath.hasPrefix(prefix) { return String(standardPath.dropFirst(prefix.count)) }
        return path
    }
}
