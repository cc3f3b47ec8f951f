import Foundation

/// The few file-system queries the reader makes.
enum FileSystem {
    static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func isExecutable(_ path: String) -> Bool {
        isFile(path) && FileManager.default.isExecutableFile(atPath: path)
    }

    /// The path with every symbolic link resolved.
    static func resolvingSymlinks(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// Absolute, standardized form of a path (relative paths are taken from the current directory).
    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Regular files in a directory (recursively when asked), as absolute paths, sorted.
    static func files(under directory: String, recursive: Bool) -> [String] {
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        let names: [String]
        if recursive {
            guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
            names = enumerator.compactMap { $0 as? String }
        } else {
            names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        }
        return names.map { root.appendingPathComponent($0).path }.filter(isFile).sorted()
    }

    /// Entries of a directory whose names start with `prefix`, sorted.
    static func entries(of directory: String, withPrefix prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.sorted()
    }
}
