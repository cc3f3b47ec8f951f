import Foundation

/// A cheap textual pre-check: which of the requested names occur as identifiers in the headers at all.
/// Names that occur nowhere cannot be declared there, and when none occurs libclang is never loaded.
enum HeaderMentions {
    /// The files searched: the headers, the other headers next to them, and every header under the
    /// include directories.
    static func files(of sources: CHeaderSources) -> [String] {
        var files = Set(sources.headers)
        for directory in Set(sources.headers.map { ($0 as NSString).deletingLastPathComponent }) {
            files.formUnion(FileSystem.files(under: directory, recursive: false).filter(isHeader))
        }
        for directory in sources.includeDirectories {
            files.formUnion(FileSystem.files(under: directory, recursive: true).filter(isHeader))
        }
        return files.sorted()
    }

    /// The subset of `names` that occur as identifiers in `files`.
    static func names(_ names: Set<String>, mentionedIn files: [String]) -> Set<String> {
        var remaining = names
        var found: Set<String> = []
        for file in files where !remaining.isEmpty {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            for identifier in identifiers(in: data) where remaining.contains(identifier) {
                remaining.remove(identifier)
                found.insert(identifier)
            }
        }
        return found
    }

    private static func isHeader(_ path: String) -> Bool {
        path.hasSuffix(".h") || path.hasSuffix(".hpp") || path.hasSuffix(".inc") || path.hasSuffix(".def")
    }

    /// The identifier-like words of a file (ASCII letters, digits, underscore).
    static func identifiers(in data: Data) -> Set<String> {
        var result: Set<String> = []
        var current: [UInt8] = []
        func flush() {
            if let first = current.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
                result.insert(String(decoding: current, as: UTF8.self))
            }
            current.removeAll(keepingCapacity: true)
        }
        for byte in data {
            let isWordByte =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
            if isWordByte {
                current.append(byte)
            } else if !current.isEmpty {
                flush()
            }
        }
        if !current.isEmpty { flush() }
        return result
    }
}
