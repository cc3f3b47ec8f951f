import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file locks a process holds on the files of a folder, as Linux lists them in `/proc/locks`
/// (`1: FLOCK ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF`; a POSIX lock taken through a
/// descriptor shared with other processes is listed under the pid that took it).
package struct FileLocks: CustomStringConvertible {
    /// Each lock: its kind (`FLOCK`, `POSIX`, `OFDLCK`), its mode, and the path of the locked file.
    package var locks: [(kind: String, mode: String, path: String)]

    /// The locks `pid` holds on files under `folder` (every file of every subfolder), matched by
    /// device and inode. `nil` where there is no `/proc/locks` (not Linux).
    package init?(pid: Int32, folder: String) {
        // Read to its end: `String(contentsOfFile:)` reads a /proc file's first page only (its size
        // says 0), and with many locks in the system this process's are further down.
        guard let handle = FileHandle(forReadingAtPath: "/proc/locks") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd(), let table = String(data: data, encoding: .utf8) else { return nil }
        var files: [String: String] = [:]
        let root = URL(fileURLWithPath: folder)
        var paths = [folder]
        if let walker = FileManager.default.enumerator(atPath: folder) {
            while let relative = walker.nextObject() as? String {
                paths.append(root.appending(path: relative).path(percentEncoded: false))
            }
        }
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let device = UInt64(info.st_dev)
            let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
            let minor = (device & 0xff) | ((device >> 12) & ~0xff)
            files["\(major):\(minor):\(info.st_ino)"] = path
        }
        locks = table.split(separator: "\n").compactMap { line in
            // "1: POSIX  ADVISORY  READ 1234 08:01:5678 128 128", or "1: -> …" for a waiting lock.
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] != "->", Int32(fields[4]) == pid else { return nil }
            let parts = fields[5].split(separator: ":")
            guard parts.count == 3, let major = UInt64(parts[0], radix: 16), let minor = UInt64(parts[1], radix: 16),
                let path = files["\(major):\(minor):\(parts[2])"]
            else { return nil }
            return (String(fields[1]), String(fields[3]), path)
        }
    }

    package var description: String {
        locks.isEmpty ? "no lock" : locks.map { "\($0.kind) \($0.mode) \($0.path)" }.joined(separator: ", ")
    }
}
