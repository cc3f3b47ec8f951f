#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system calls scanning needs, made directly with POSIX: `handlergen` runs on every build
/// that touches a source file, and Foundation's URL and path handling cost more per file than scanning
/// the file.
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

    /// The number of processors online (at least 1).
    static func processorCount() -> Int {
        max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
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

/// Reads whole files into one buffer that is reused from file to file (it grows to the largest file
/// read), so that scanning many files allocates, zero-fills and page-faults that memory once.
struct FileReader {
    private var buffer: [UInt8] = []

    /// Calls `body` with the whole content of the file at `path` (valid only during the call), or returns
    /// the system's reason why the file cannot be read.
    mutating func withContents<Value>(
        of path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Value
    ) -> Result<Value, FileSystem.ReadFailure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(FileSystem.ReadFailure(code: errno)) }
        defer { close(descriptor) }
        var status = stat()
        let size = fstat(descriptor, &status) == 0 ? max(Int(status.st_size), 0) : 0
        // Room for the size and one byte more: one read usually returns exactly the size the file
        // reported, which ends it without another call. A file that changes size meanwhile, or reports
        // no size, is read on until a read returns nothing.
        if buffer.count < size + 1 { buffer = [UInt8](repeating: 0, count: max(size + 1, 64 * 1024)) }
        var filled = 0
        while size == 0 || filled != size {
            if filled == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
            var failure: Int32 = 0
            let count = buffer.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return 0 }
                let count = read(descriptor, base + filled, raw.count - filled)
                if count < 0 { failure = errno }
                return count
            }
            if count == 0 { break }
            if count < 0 {
                if failure == EINTR { continue }
                return .failure(FileSystem.ReadFailure(code: failure))
            }
            filled += count
        }
        return .success(buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<filled])) })
    }
}
