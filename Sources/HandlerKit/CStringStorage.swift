#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the strings of decoded `const char *` fields live.
///
/// A C struct copied into Swift cannot own the memory its `const char *` points to, so a decoded
/// string is stored here once, NUL-terminated, and kept for the life of the process: every field
/// decoded with the same text points to the same bytes. Memory grows with the number of *distinct*
/// strings decoded, not with the number of decodes.
enum CStringStorage {
    private static let strings = Locked<[String: UnsafeMutablePointer<CChar>]>([:])

    /// The stored copy of `text`. `text` must not contain NUL (checked by the caller).
    static func pointer(for text: String) -> UnsafePointer<CChar> {
        strings.withLock { strings in
            if let stored = strings[text] { return UnsafePointer(stored) }
            let utf8 = Array(text.utf8)
            let stored = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
            for (index, byte) in utf8.enumerated() { stored[index] = CChar(bitPattern: byte) }
            stored[utf8.count] = 0
            strings[text] = stored
            return UnsafePointer(stored)
        }
    }
}

extension CValueCoding {
    /// The text a `const char *` field points to; `nil` for `NULL`. Invalid UTF-8 cannot be written
    /// exactly: an error.
    static func string(at pointer: UnsafePointer<CChar>?, codingPath: [any CodingKey]) throws -> String? {
        guard let pointer else { return nil }
        guard let text = String(validatingCString: pointer) else {
            throw EncodingError.invalidValue(
                pointer,
                .init(
                    codingPath: codingPath, debugDescription: "const char * holds bytes that are not UTF-8"))
        }
        return text
    }

    /// A pointer to a stored copy of `text` (see `CStringStorage`); `nil` for `nil`. A string with NUL
    /// cannot be a C string: an error, never truncated.
    static func pointer(to text: String?, codingPath: [any CodingKey]) throws -> UnsafePointer<CChar>? {
        guard let text else { return nil }
        guard !text.utf8.contains(0) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath, debugDescription: "string contains NUL, which a const char * cannot hold"))
        }
        return CStringStorage.pointer(for: text)
    }
}

@_spi(HandlerKitGenerated)
extension KeyedEncodingContainer where Key == CFieldKey {
    /// Encodes a `const char *` field as a string, or `null` for `NULL`.
    @_spi(HandlerKitGenerated) public mutating func encodeCStringPointer(
        _ field: UnsafePointer<CChar>?, forKey key: Key
    ) throws {
        try encode(CValueCoding.string(at: field, codingPath: codingPath + [key]), forKey: key)
    }
}

extension UnkeyedEncodingContainer {
    /// Encodes a `const char *` array element as a string, or `null` for `NULL`.
    @_spi(HandlerKitGenerated) public mutating func encodeCStringPointer(_ field: UnsafePointer<CChar>?) throws {
        try encode(CValueCoding.string(at: field, codingPath: codingPath))
    }
}

@_spi(HandlerKitGenerated)
extension KeyedDecodingContainer where Key == CFieldKey {
    /// Decodes a string (or `null`) into a `const char *` field, pointing to a stored copy.
    @_spi(HandlerKitGenerated) public func decodeCStringPointer(
        _ field: inout UnsafePointer<CChar>?, forKey key: Key
    ) throws {
        field = try CValueCoding.pointer(to: decode(String?.self, forKey: key), codingPath: codingPath + [key])
    }
}

extension UnkeyedDecodingContainer {
    /// Decodes the next element, a string (or `null`), into a `const char *` field.
    @_spi(HandlerKitGenerated) public mutating func decodeCStringPointer(_ field: inout UnsafePointer<CChar>?) throws {
        let path = codingPath
        field = try CValueCoding.pointer(to: decode(String?.self), codingPath: path)
    }
}
