/// Decodes `Decodable` values from a `HandlerValue` tree, strictly: a number never becomes a
/// `Bool`, `true` never becomes a number, and integers must fit their type exactly.
///
/// Mismatches throw `DecodingError` with the coding path, as any `Decoder` does, so that custom
/// `init(from:)` implementations behave as they would with `JSONDecoder`.
enum HandlerValueDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from value: HandlerValue, context: DecodingContext) throws -> T {
        try decode(type, from: value, codingPath: [], context: context)
    }

    static func decode<T: Decodable>(
        _ type: T.Type, from value: HandlerValue, codingPath: [any CodingKey], context: DecodingContext
    ) throws -> T {
        if let scalarType = type as? any HandlerScalar.Type {
            guard let scalar = scalarType.exactly(value), let typed = scalar as? T else {
                throw DecodingError.typeMismatch(
                    type,
                    .init(
                        codingPath: codingPath, debugDescription: "expected \(type), found \(value.kindDescription)"))
            }
            return typed
        }
        if type == HandlerValue.self, let typed = value as? T { return typed }
        if type == Handler.self {
            do {
                if let typed = try Handler(documentValue: value, context: context) as? T { return typed }
            } catch {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: codingPath, debugDescription: error.description, underlyingError: error))
            }
        }
        return try T(from: ValueDecoder(value: value, codingPath: codingPath, context: context))
    }
}

/// What decoding needs beyond the value: where to look up nested handlers' ids, and the limits.
@usableFromInline
struct DecodingContext: Sendable {
    var registry: HandlerRegistry
    var limits: DecodingLimits
}

private struct ValueDecoder: Decoder {
    let value: HandlerValue
    let codingPath: [any CodingKey]
    let context: DecodingContext
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(
                    codingPath: codingPath, debugDescription: "expected an object, found \(value.kindDescription)"))
        }
        return KeyedDecodingContainer(
            KeyedValueContainer<Key>(members: members, codingPath: codingPath, context: context))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw DecodingError.typeMismatch(
                [Any].self,
                .init(
                    codingPath: codingPath, debugDescription: "expected an array, found \(value.kindDescription)"))
        }
        return UnkeyedValueContainer(elements: elements, codingPath: codingPath, context: context)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath, context: context)
    }
}

private struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: HandlerValue]
    let codingPath: [any CodingKey]
    let context: DecodingContext

    var allKeys: [Key] { members.keys.sorted().compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> HandlerValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath, debugDescription: "no value for key '\(key.stringValue)'"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try HandlerValueDecoder.decode(type, from: member(key), codingPath: codingPath + [key], context: context)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key], context: context).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key], context: context).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath, context: context)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key], context: context)
    }
}

private struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let elements: [HandlerValue]
    let codingPath: [any CodingKey]
    let context: DecodingContext
    var currentIndex = 0

    init(elements: [HandlerValue], codingPath: [any CodingKey], context: DecodingContext) {
        self.elements = elements
        self.codingPath = codingPath
        self.context = context
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> (HandlerValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: codingPath + [IndexKey(currentIndex)],
                    debugDescription: "the array has only \(elements.count) elements"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next(type)
        return try HandlerValueDecoder.decode(type, from: value, codingPath: path, context: context)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next([String: Any].self)
        return try ValueDecoder(value: value, codingPath: path, context: context).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next([Any].self)
        return try ValueDecoder(value: value, codingPath: path, context: context).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next(Any.self)
        return ValueDecoder(value: value, codingPath: path, context: context)
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let value: HandlerValue
    let codingPath: [any CodingKey]
    let context: DecodingContext

    func decodeNil() -> Bool { value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try HandlerValueDecoder.decode(type, from: value, codingPath: codingPath, context: context)
    }
}

extension DecodingError {
    /// The coding path and explanation, e.g. `at 'origin.x': expected Double, found string "a"`; `nil`
    /// for a mismatch of the whole value, which `HandlerError.typeMismatch` already states.
    var handlerKitDetail: String? {
        let context: Context
        switch self {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default: return "\(self)"
        }
        var path = context.codingPath.map(\.stringValue).joined(separator: ".")
        if case .keyNotFound(let key, _) = self { path += (path.isEmpty ? "" : ".") + key.stringValue }
        if path.isEmpty, case .typeMismatch = self { return nil }
        return path.isEmpty ? context.debugDescription : "at '\(path)': \(context.debugDescription)"
    }
}
