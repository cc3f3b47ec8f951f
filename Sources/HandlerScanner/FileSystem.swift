#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system calls scanning needs, made directly with POSIX: `handlergen` runs on every build
/// that touches a source file, and Foundation's URL and path handling cost more per file than scanning
/// the file (issue 9; a profile of `handlergen scan` on swift-nio).
enum FileSystem {
    /// What a path names, following symbolic links.
    enum Kind {
        case directory
        case other
        case missing
    }

    /// One name in a directory (never `.` or `..`).
    struct DirectoryEntry {
        var name: String
        var isDirectory: Bool
        var isSymbolicLink: Bool
    }

    static func kind(of path: String) -> Kind {
        var status = stat()
        guard stat(path, &status) == 0 else { return .missing }
        return status.st_mode & S_IFMT == S_IFDIR ? .directory : .other
    }

    /// The entries of `directory`, in the order the system lists them; `nil` when it cannot be read.
    static func entries(of directory: String) -> [DirectoryEntry]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var entries: [DirectoryEntry] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            var isDirectory = Int32(entry.pointee.d_type) == Int32(DT_DIR)
            var isSymbolicLink = Int32(entry.pointee.d_type) == Int32(DT_LNK)
            if Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN) {
                // Some file systems do not report the type: ask for it, without following a link.
                var status = stat()
                if lstat(directory + "/" + name, &status) == 0 {
                    isDirectory = status.st_mode & S_IFMT == S_IFDIR
                    isSymbolicLink = status.st_mode & S_IFMT == S_IFLNK
                }
            }
            entries.append(DirectoryEntry(name: name, isDirectory: isDirectory, isSymbolicLink: isSymbolicLink))
        }
        return entries
    }

    /// The whole content of the file at `path`, or the system's reason why it cannot be read.
    static func contents(of path: String) -> Result<[UInt8], ReadFailure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(ReadFailure(code: errno)) }
        defer { close(descriptor) }
        var status = stat()
        let size = fstat(descriptor, &status) == 0 ? max(Int(status.st_size), 0) : 0
        // The file's size and one more byte, so that one read usually takes it all; a file that grows
        // (or reports no size) is read on until the end.
        let chunk = max(size + 1, 4096)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chunk)
        while true {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: chunk))
            var failure: Int32 = 0
            let count = bytes.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                let count = read(descriptor, base + start, chunk)
                if count < 0 { failure = errno }
                return count
            }
            if count < 0 {
                bytes.removeLast(chunk)
                if failure == EINTR { continue }
                return .failure(ReadFailure(code: failure))
            }
            bytes.removeLast(chunk - count)
            if count == 0 { return .success(bytes) }
        }
    }

    /// The absolute path of the current directory ("/" when it cannot be found).
    static func currentDirectory() -> String {
        guard let buffer = getcwd(nil, 0) else { return "/" }
        defer { free(buffer) }
        return String(cString: buffer)
    }

    /// A system error reading a file.
    struct ReadFailure: Error {
        var code: Int32
        /// The system's message, e.g. "Permission denied".
        var reason: String { String(cString: strerror(code)) }
    }
}
