/// Encodes any `Encodable` value into a `HandlerValue` tree.
///
/// Scalars (all integer widths, `Bool`, `Double`, `Float`, `String`, `Data`, `URL`), nested
/// `Handler`s and `HandlerValue`s are converted directly; everything else goes through its
/// `encode(to:)`.
enum HandlerValueEncoder {
    static func encode(_ value: some Encodable) throws -> HandlerValue {
        if let direct = try directValue(of: value) { return direct }
        let node = EncodingNode()
        try value.encode(to: NodeEncoder(node: node, codingPath: []))
        return node.resolved()
    }

    static func directValue(of value: Any) throws -> HandlerValue? {
        if let scalar = value as? any HandlerScalar { return scalar.handlerValue }
        if let handlerValue = value as? HandlerValue {
            // Built by the caller: a `.number` must hold a JSON number, or the document written
            // from it could not be read back.
            if let text = handlerValue.firstInvalidNumber {
                throw EncodingError.invalidValue(
                    handlerValue,
                    .init(
                        codingPath: [], debugDescription: "HandlerValue.number(\"\(text)\") is not a JSON number"))
            }
            return handlerValue
        }
        if let handler = value as? Handler { return handler.documentValue() }
        return nil
    }
}

/// A value being encoded: filled in by whichever container the value asks for.
private final class EncodingNode {
    enum Content {
        case empty
        case value(HandlerValue)
        case object([String: EncodingNode])
        case array([EncodingNode])
    }

    var content: Content = .empty

    func resolved() -> HandlerValue {
        switch content {
        case .empty: .object([:])
        case .value(let value): value
        case .object(let members): .object(members.mapValues { $0.resolved() })
        case .array(let elements): .array(elements.map { $0.resolved() })
        }
    }

    func member(_ key: String) -> EncodingNode {
        var members: [String: EncodingNode] = [:]
        if case .object(let existing) = content { members = existing }
        if let node = members[key] { return node }
        let node = EncodingNode()
        members[key] = node
        content = .object(members)
        return node
    }

    func appendElement() -> EncodingNode {
        var elements: [EncodingNode] = []
        if case .array(let existing) = content { elements = existing }
        let node = EncodingNode()
        elements.append(node)
        content = .array(elements)
        return node
    }

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        if let direct = try HandlerValueEncoder.directValue(of: value) {
            content = .value(direct)
        } else {
            try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }
}

private struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([:]) }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueNodeContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try node.member(key.stringValue).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    var count: Int {
        if case .array(let elements) = node.content { return elements.count }
        return 0
    }

    mutating func encodeNil() throws { node.appendElement().content = .value(.null) }

    mutating func encode(_ value: some Encodable) throws {
        try node.appendElement().encode(value, codingPath: codingPath + [IndexKey(count)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.appendElement(), codingPath: codingPath + [IndexKey(count)]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.appendElement(), codingPath: codingPath + [IndexKey(count)]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.appendElement(), codingPath: codingPath + [IndexKey(count)])
    }
}

private struct SingleValueNodeContainer: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }

    mutating func encode(_ value: some Encodable) throws {
        try node.encode(value, codingPath: codingPath)
    }
}

/// The coding key of an array element.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }
}
