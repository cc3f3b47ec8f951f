#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An I/O failure on a file descriptor.
package struct FileDescriptorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The system call that failed.
    package var operation: String
    /// The `errno` it reported.
    package var code: Int32

    package init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    package var description: String { "\(operation) failed (errno \(code))" }
}

/// Reads bytes from a file descriptor, retrying interrupted reads.
package struct FileDescriptorReader: ByteReading {
    /// The descriptor read from; not closed by this type.
    package let descriptor: Int32

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    package mutating func read(maxCount: Int) throws -> [UInt8] {
        guard maxCount > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: maxCount)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                #if canImport(Darwin)
                return Darwin.read(descriptor, base, raw.count)
                #elseif canImport(Musl)
                return Musl.read(descriptor, base, raw.count)
                #else
                return Glibc.read(descriptor, base, raw.count)
                #endif
            }
            if count >= 0 {
                return Array(buffer.prefix(count))
            }
            if errno != EINTR {
                throw FileDescriptorError(operation: "read", code: errno)
            }
        }
    }
}

/// Writes bytes to a file descriptor, retrying interrupted and partial writes.
package struct FileDescriptorWriter: ByteWriting {
    /// The descriptor written to; not closed by this type.
    package let descriptor: Int32

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    package mutating func write(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                let start = base + written
                #if canImport(Darwin)
                return Darwin.write(descriptor, start, raw.count - written)
                #elseif canImport(Musl)
                return Musl.write(descriptor, start, raw.count - written)
                #else
                return Glibc.write(descriptor, start, raw.count - written)
                #endif
            }
            if count > 0 {
                written += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                throw FileDescriptorError(operation: "write", code: count < 0 ? errno : 0)
            }
        }
    }
}
