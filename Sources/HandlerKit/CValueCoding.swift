// Support for the `Codable` conformances `handlergen` generates for C structs and enums that handlers
// bind (README, "C types as handler parameters"). Generated code calls these through the SPI it imports.
//
// The JSON form of a C value: a struct is an object with one member per field (a field of an anonymous
// nested struct is a nested object), a fixed-size array is an array of exactly its element count, a
// `char name[N]` is a string of at most N - 1 UTF-8 bytes (the array always keeps its terminating NUL),
// and an enum is its raw value. Numbers are exact (see `HandlerValue`).

/// A coding key written as a string literal, e.g. `forKey: "tag"`.
@_spi(HandlerKitGenerated)
public struct CFieldKey: CodingKey, ExpressibleByStringLiteral, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }

    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
    public init(stringLiteral value: String) { stringValue = value }
}

/// Conversions between C field storage and JSON values that generated code cannot spell inline.
@_spi(HandlerKitGenerated)
public enum CValueCoding {
    /// The enum value with the decoded raw value; an error when the type rejects it (Swift enums imported
    /// with `enum_extensibility(closed)`), never a crash.
    public static func enumeration<T: RawRepresentable>(_ type: T.Type, from decoder: any Decoder) throws -> T
    where T.RawValue: Decodable {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(T.RawValue.self)
        guard let value = T(rawValue: raw) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath, debugDescription: "\(raw) is not a value of \(T.self)"))
        }
        return value
    }

    /// The string in a `char[capacity]` field (a tuple of `capacity` C characters): the bytes before the
    /// first NUL. A field without a NUL or with invalid UTF-8 cannot be written exactly: an error.
    static func string<T>(in field: T, capacity: Int, codingPath: [any CodingKey]) throws -> String {
        func failure(_ reason: String) -> EncodingError {
            EncodingError.invalidValue(field, .init(codingPath: codingPath, debugDescription: reason))
        }
        guard MemoryLayout<T>.size == capacity else {
            throw failure("a char[\(capacity)] field has \(MemoryLayout<T>.size) bytes")
        }
        let bytes = withUnsafeBytes(of: field) { Array($0) }
        guard let end = bytes.firstIndex(of: 0) else {
            throw failure("char[\(capacity)] holds no terminating NUL")
        }
        let text = String(decoding: bytes[..<end], as: UTF8.self)
        guard text.utf8.elementsEqual(bytes[..<end]) else {
            throw failure("char[\(capacity)] holds bytes that are not UTF-8")
        }
        return text
    }

    /// Stores `text` and a terminating NUL in a `char[capacity]` field, zeroing the rest. A string that
    /// does not fit (more than `capacity - 1` UTF-8 bytes) or contains NUL is a decoding error: it is
    /// never truncated.
    static func store<T>(_ text: String, in field: inout T, capacity: Int, codingPath: [any CodingKey]) throws {
        func failure(_ reason: String) -> DecodingError {
            DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: reason))
        }
        guard MemoryLayout<T>.size == capacity else {
            throw failure("a char[\(capacity)] field has \(MemoryLayout<T>.size) bytes")
        }
        let utf8 = Array(text.utf8)
        guard utf8.count < capacity else {
            throw failure(
                "string of \(utf8.count) UTF-8 bytes does not fit char[\(capacity)] (at most \(capacity - 1))")
        }
        guard !utf8.contains(0) else { throw failure("string contains NUL, which char[\(capacity)] cannot hold") }
        withUnsafeMutableBytes(of: &field) { storage in
            storage.initializeMemory(as: UInt8.self, repeating: 0)
            storage.copyBytes(from: utf8)
        }
    }

    /// Whether `value` fits a bit-field of `bits` bits of its signedness.
    static func fits<T: BinaryInteger>(_ value: T, bits: Int) -> Bool {
        guard bits > 0, bits < value.bitWidth else { return bits > 0 || value == 0 }
        if T.isSigned {
            let limit = T(1) << (bits - 1)
            return value >= 0 - limit && value < limit
        }
        return value < T(1) << bits
    }

    /// An error unless an array holds exactly `expected` elements (a C array's length is fixed).
    static func checkCount(_ count: Int?, expected: Int, codingPath: [any CodingKey]) throws {
        guard count == expected else {
            let found = count.map { "\($0) elements" } ?? "an array of unknown length"
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "expected an array of \(expected) elements, found \(found)"))
        }
    }
}

@_spi(HandlerKitGenerated)
extension KeyedEncodingContainer where Key == CFieldKey {
    /// Encodes a `char[capacity]` field as a string.
    @_spi(HandlerKitGenerated) public mutating func encodeCString<T>(_ field: T, capacity: Int, forKey key: Key) throws
    {
        try encode(CValueCoding.string(in: field, capacity: capacity, codingPath: codingPath + [key]), forKey: key)
    }
}

extension UnkeyedEncodingContainer {
    /// Encodes a `char[capacity]` array element as a string.
    @_spi(HandlerKitGenerated) public mutating func encodeCString<T>(_ field: T, capacity: Int) throws {
        try encode(CValueCoding.string(in: field, capacity: capacity, codingPath: codingPath))
    }
}

@_spi(HandlerKitGenerated)
extension KeyedDecodingContainer where Key == CFieldKey {
    /// Decodes a field of any `Decodable` type into `field` (its type is the field's own Swift type, so
    /// generated code need not spell `Int32` or `CLong`).
    @_spi(HandlerKitGenerated) public func decodeCField<T: Decodable>(_ field: inout T, forKey key: Key) throws {
        field = try decode(T.self, forKey: key)
    }

    /// Decodes an integer bit-field of `bits` bits; a value that does not fit is an error (assigning it
    /// would silently drop its high bits).
    @_spi(HandlerKitGenerated) public func decodeCBitField<T: BinaryInteger & Decodable>(
        _ field: inout T, bits: Int, forKey key: Key
    ) throws {
        let value = try decode(T.self, forKey: key)
        guard CValueCoding.fits(value, bits: bits) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath + [key], debugDescription: "\(value) does not fit a \(bits)-bit field"))
        }
        field = value
    }

    /// Decodes a string into a `char[capacity]` field.
    @_spi(HandlerKitGenerated) public func decodeCString<T>(_ field: inout T, capacity: Int, forKey key: Key) throws {
        let text = try decode(String.self, forKey: key)
        try CValueCoding.store(text, in: &field, capacity: capacity, codingPath: codingPath + [key])
    }

    /// The array of a fixed-size C array field, checked to hold exactly `count` elements.
    @_spi(HandlerKitGenerated) public func nestedCArray(
        count: Int, forKey key: Key
    ) throws -> any UnkeyedDecodingContainer {
        let container = try nestedUnkeyedContainer(forKey: key)
        try CValueCoding.checkCount(container.count, expected: count, codingPath: codingPath + [key])
        return container
    }
}

extension UnkeyedDecodingContainer {
    /// Decodes the next element into `field`.
    @_spi(HandlerKitGenerated) public mutating func decodeCField<T: Decodable>(_ field: inout T) throws {
        field = try decode(T.self)
    }

    /// Decodes the next element, a string, into a `char[capacity]` field.
    @_spi(HandlerKitGenerated) public mutating func decodeCString<T>(_ field: inout T, capacity: Int) throws {
        let path = codingPath
        let text = try decode(String.self)
        try CValueCoding.store(text, in: &field, capacity: capacity, codingPath: path)
    }

    /// The next element, an array of exactly `count` elements (a nested fixed-size C array).
    @_spi(HandlerKitGenerated) public mutating func nestedCArray(count: Int) throws -> any UnkeyedDecodingContainer {
        let path = codingPath
        let container = try nestedUnkeyedContainer()
        try CValueCoding.checkCount(container.count, expected: count, codingPath: path)
        return container
    }
}
