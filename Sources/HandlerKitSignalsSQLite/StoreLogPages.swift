#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The committed pages of a `-wal` file, read the way SQLite recovers it: the frames after its
/// header whose salts match the header's and whose running checksum holds, up to the last frame
/// that ends a commit. The store's opening checks against them that no page of the database is in
/// neither the database file nor the `-wal` file.
struct StoreLogPages {
    /// The page size the `-wal` file's header records.
    let pageSize: Int
    /// The database's size in pages after the last commit in the file; `nil` when it holds none.
    let databasePages: Int?
    /// The pages that the commits in the file wrote.
    let pages: Set<UInt32>
    /// The file's size and header: a writer that appends, restarts or truncates the file changes them.
    let fingerprint: [UInt8]

    /// The size and header of the `-wal` file at `path` (fewer bytes when it is shorter); `nil`
    /// when there is none.
    static func fingerprint(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { closeDescriptor(fd) }
        return fingerprint(fd)?.bytes
    }

    private static func fingerprint(_ fd: Int32) -> (bytes: [UInt8], size: Int, header: [UInt8])? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        var header = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &header, 32, 0)
        guard count >= 0 else { return nil }
        header = Array(header.prefix(count))
        return (withUnsafeBytes(of: Int64(size).bigEndian, Array.init) + header, size, header)
    }

    /// The committed pages of the `-wal` file at `path`; `nil` when there is none, it is shorter
    /// than its 32-byte header, or its header is not a valid `-wal` header (SQLite ignores such a file).
    static func read(_ path: String) -> StoreLogPages? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { closeDescriptor(fd) }
        guard let (identity, size, header) = fingerprint(fd), header.count == 32 else { return nil }
        let magic = number(header, at: 0)
        let pageSize = number(header, at: 8)
        guard magic & 0xFFFF_FFFE == 0x377F_0682, pageSize >= 512, pageSize <= 65_536,
            pageSize & (pageSize - 1) == 0
        else { return nil }
        var checksum = Checksum(bigEndian: magic & 1 == 1)
        checksum.add(header[0..<24])
        guard checksum.value == (number(header, at: 24), number(header, at: 28)) else { return nil }

        var databasePages: Int?
        var pages = Set<UInt32>()
        var pending: [UInt32] = []
        var frame = [UInt8](repeating: 0, count: 24 + pageSize)
        var offset = 32
        while offset + frame.count <= size, pread(fd, &frame, frame.count, off_t(offset)) == frame.count {
            let page = number(frame, at: 0)
            guard page > 0, frame[8..<16].elementsEqual(header[16..<24]) else { break }
            checksum.add(frame[0..<8])
            checksum.add(frame[24...])
            guard checksum.value == (number(frame, at: 16), number(frame, at: 20)) else { break }
            pending.append(UInt32(page))
            if number(frame, at: 4) > 0 {
                databasePages = number(frame, at: 4)
                pages.formUnion(pending)
                pending.removeAll()
            }
            offset += frame.count
        }
        return StoreLogPages(
            pageSize: pageSize, databasePages: databasePages, pages: pages, fingerprint: identity)
    }

    /// The big-endian 32-bit number at `offset` of `bytes`.
    private static func number(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
    }

    /// SQLite's running checksum of a `-wal` file: two sums over its 32-bit words, read in the byte
    /// order the file's magic number names.
    private struct Checksum {
        let bigEndian: Bool
        var first: UInt32 = 0
        var second: UInt32 = 0

        var value: (Int, Int) { (Int(first), Int(second)) }

        mutating func add(_ bytes: ArraySlice<UInt8>) {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset + 8 <= raw.count {
                    first &+= word(raw, offset) &+ second
                    second &+= word(raw, offset + 4) &+ first
                    offset += 8
                }
            }
        }

        private func word(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
            let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return bigEndian ? UInt32(bigEndian: word) : UInt32(littleEndian: word)
        }
    }
}
