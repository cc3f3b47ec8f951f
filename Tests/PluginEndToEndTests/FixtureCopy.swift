import Foundation

/// Copying the fixture package so that an incremental build stays incremental.
enum FixtureCopy {
    /// Makes `destination` hold exactly the files of `source` (after `transform`), writing only files
    /// whose content differs and removing files that `source` no longer has.
    static func mirror(
        _ source: URL, to destination: URL, transform: (String, Data) throws -> Data
    ) throws {
        let manager = FileManager.default
        let files = try relativeFiles(in: source)
        for relativePath in files {
            let data = try transform(relativePath, Data(contentsOf: source.appending(path: relativePath)))
            let target = destination.appending(path: relativePath, directoryHint: .notDirectory)
            if manager.contents(atPath: target.path(percentEncoded: false)) == data { continue }
            try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: target)
        }
        let wanted = Set(files)
        for stale in try relativeFiles(in: destination.appending(path: "Sources", directoryHint: .isDirectory))
        where !wanted.contains("Sources/" + stale) {
            try manager.removeItem(at: destination.appending(path: "Sources/" + stale))
        }
    }

    /// The regular files under `folder`, as sorted paths relative to it; none if it does not exist.
    static func relativeFiles(in folder: URL) throws -> [String] {
        let root = folder.standardizedFileURL.path(percentEncoded: false)
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let relativePath = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = (root as NSString).appendingPathComponent(relativePath)
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(relativePath)
            }
        }
        return files.sorted()
    }

    /// The fixture's manifest with its relative path to HandlerKit replaced by `root`, and a last
    /// comment line naming `fingerprint`.
    static func pointingAtHandlerKit(_ manifest: Data, root: URL, fingerprint: String) throws -> Data {
        let text = String(decoding: manifest, as: UTF8.self)
        let relative = #"let handlerKitPath = "../../..""#
        guard text.contains(relative) else {
            throw SubprocessError(message: "the fixture's Package.swift no longer declares \(relative)")
        }
        let path = root.standardizedFileURL.path(percentEncoded: false)
            .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return Data(
            (text.replacingOccurrences(of: relative, with: "let handlerKitPath = \"\(path)\"")
                + "// HandlerKit's files: \(fingerprint)\n").utf8)
    }

    /// A digest of HandlerKit's file names and manifest. SwiftPM does not notice a file added to or
    /// removed from a path dependency in an incremental build; the fixture's manifest carries this
    /// digest, so such a change rewrites the manifest and makes SwiftPM load the packages again.
    static func sourceFingerprint(root: URL) throws -> String {
        var text = ""
        for folder in ["Sources", "Plugins", "Templates"] {
            for file in try relativeFiles(in: root.appending(path: folder, directoryHint: .isDirectory)) {
                text += folder + "/" + file + "\n"
            }
        }
        let manifest = try Data(contentsOf: root.appending(path: "Package.swift", directoryHint: .notDirectory))
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bits
        for byte in Data(text.utf8) + manifest {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
