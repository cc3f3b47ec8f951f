/// Encodes any `Encodable` value into a `HandlerValue` tree.
///
/// Scalars (all integer widths, `Bool`, `Double`, `Float`, `String`, `Data`, `URL`), nested
/// `Handler`s and `HandlerValue`s are converted directly; everything else goes through its
/// `encode(to:)`.
///
/// Encoding stops with `HandlerError.valueTooDeep` as soon as an array or object would lie deeper
/// than a document read with `DecodingLimits.default` may nest, given the value's place in its
/// document: long before the stack is at risk, even for a recursive type of the caller's. Encoding
/// calls nested inside each other without adding a level (single-value containers) are bounded by
/// the same number.
enum HandlerValueEncoder {
    static func encode(_ value: some Encodable, at place: ValuePlace = .alone) throws -> HandlerValue {
        let budget = EncodingBudget(place: place)
        if let direct = try directValue(of: value, level: place.enclosingLevels, codingPath: [], budget: budget) {
            return direct
        }
        let node = EncodingNode(level: place.enclosingLevels, budget: budget)
        do {
            try budget.descend(into: value, level: place.enclosingLevels, codingPath: []) {
                try value.encode(to: NodeEncoder(node: node, codingPath: []))
            }
        } catch {
            // The value's own `encode(to:)` may have wrapped or replaced the error that stopped it.
            throw budget.violation ?? error
        }
        if let violation = budget.violation { throw violation }
        return node.resolved()
    }

    /// `value` itself when it is a scalar, a `HandlerValue` or a `Handler` placed `level` levels
    /// deep, checked against the depth limit there; `nil` for other values.
    static func directValue(
        of value: Any, level: Int, codingPath: [any CodingKey], budget: EncodingBudget
    ) throws -> HandlerValue? {
        if let scalar = value as? any HandlerScalar { return scalar.handlerValue }
        let direct: HandlerValue
        let checksNumbers: Bool
        if let handlerValue = value as? HandlerValue {
            // Built by the caller: a `.number` must hold a JSON number, or the document written
            // from it could not be read back.
            direct = handlerValue
            checksNumbers = true
        } else if let handler = value as? Handler {
            direct = handler.documentValue()
            checksNumbers = false
        } else {
            return nil
        }
        let place = ValuePlace(enclosingLevels: level, path: budget.place.path(appending: codingPath))
        let survey = direct.survey(at: place, maximumLevel: budget.maximumLevel, checkingNumbers: checksNumbers)
        guard survey.exceedsDepth || survey.hasInvalidNumber else { return direct }
        switch direct.firstProblem(at: place, maximumLevel: budget.maximumLevel, checkingNumbers: checksNumbers) {
        case .tooDeep(let path)?:
            throw budget.record(HandlerError.valueTooDeep(handler: nil, path: path, limit: budget.maximumLevel))
        case .invalidNumber(let text, _)?:
            throw EncodingError.invalidValue(
                direct,
                .init(codingPath: codingPath, debugDescription: "HandlerValue.number(\"\(text)\") is not a JSON number")
            )
        case nil:
            return direct
        }
    }
}

/// The depth limit of one encoding and the first violation of it. Containers are created by
/// calls that cannot throw, so a container too deep is recorded here and every later `encode`
/// throws it, which ends the recursion of the value's own `encode(to:)`.
final class EncodingBudget {
    let place: ValuePlace
    /// The deepest level an array or object may have in the document.
    let maximumLevel = ValuePlace.maximumLevel
    /// `encode(to:)` calls nested inside each other, from the value's own.
    private var calls = 0
    /// A `HandlerError.valueTooDeep`, or an `EncodingError` for calls nested too deep.
    private(set) var violation: (any Error)?

    init(place: ValuePlace) {
        self.place = place
    }

    /// Records the first violation and returns it, to throw.
    @discardableResult
    func record(_ error: any Error) -> any Error {
        if violation == nil { violation = error }
        return violation ?? error
    }

    /// Records that a container opened at `level` with `codingPath` lies too deep, if it does.
    func checkContainer(level: Int, codingPath: [any CodingKey]) {
        if level > maximumLevel {
            record(
                HandlerError.valueTooDeep(handler: nil, path: place.path(appending: codingPath), limit: maximumLevel))
        }
    }

    /// Runs the `encode(to:)` of `value`, whose node lies `level` levels deep, unless a violation
    /// was recorded or too many calls around it added no level. Each call either opens an array or
    /// object (a level, bounded by `maximumLevel`) or wraps its value in a single-value container;
    /// the wrapping calls around a value are bounded by `maximumLevel` as well, so at most twice
    /// that many calls ever nest (the stack a few hundred kilobytes deep at most, unoptimized).
    func descend(into value: Any, level: Int, codingPath: [any CodingKey], _ body: () throws -> Void) throws {
        if let violation { throw violation }
        let wrappingCalls = calls - (level - place.enclosingLevels)
        guard wrappingCalls < maximumLevel else {
            throw record(
                EncodingError.invalidValue(
                    value,
                    .init(
                        codingPath: codingPath,
                        debugDescription:
                            "encode(to:) calls nest more than \(maximumLevel) deep without adding a level "
                            + "(DecodingLimits.maximumDepth) at '\(ValuePath.shown(place.path(appending: codingPath)))': "
                            + "values wrap themselves in single-value containers without end; give the value a shape "
                            + "that ends sooner")))
        }
        calls += 1
        defer { calls -= 1 }
        try body()
    }
}

/// A value being encoded: filled in by whichever container the value asks for. `level` is the
/// number of arrays and objects around it in its document.
private final class EncodingNode {
    enum Content {
        case empty
        case value(HandlerValue)
        case object([String: EncodingNode])
        case array([EncodingNode])
    }

    let level: Int
    let budget: EncodingBudget
    var content: Content = .empty

    init(level: Int, budget: EncodingBudget) {
        self.level = level
        self.budget = budget
    }

    /// The encoded tree. Recursive, but no deeper than `budget.maximumLevel`: a deeper container
    /// ends the encoding with an error before this is called.
    func resolved() -> HandlerValue {
        switch content {
        case .empty: .object([:])
        case .value(let value): value
        case .object(let members): .object(members.mapValues { $0.resolved() })
        case .array(let elements): .array(elements.map { $0.resolved() })
        }
    }

    /// Whether this node, as a container, lies too deep: its children are then not kept, so that a
    /// caller creating nested containers in a loop (which cannot throw) builds no deep tree.
    private var isTooDeep: Bool { level + 1 > budget.maximumLevel }

    func member(_ key: String) -> EncodingNode {
        if isTooDeep { return EncodingNode(level: level + 1, budget: budget) }
        var members: [String: EncodingNode] = [:]
        if case .object(let existing) = content { members = existing }
        if let node = members[key] { return node }
        let node = EncodingNode(level: level + 1, budget: budget)
        members[key] = node
        content = .object(members)
        return node
    }

    func appendElement() -> EncodingNode {
        if isTooDeep { return EncodingNode(level: level + 1, budget: budget) }
        var elements: [EncodingNode] = []
        if case .array(let existing) = content { elements = existing }
        let node = EncodingNode(level: level + 1, budget: budget)
        elements.append(node)
        content = .array(elements)
        return node
    }

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        if let violation = budget.violation { throw violation }
        if let direct = try HandlerValueEncoder.directValue(
            of: value, level: level, codingPath: codingPath, budget: budget)
        {
            content = .value(direct)
        } else {
            try budget.descend(into: value, level: level, codingPath: codingPath) {
                try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
            }
        }
    }
}

private struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.budget.checkContainer(level: node.level + 1, codingPath: codingPath)
        if case .object = node.content {} else { node.content = .object([:]) }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.budget.checkContainer(level: node.level + 1, codingPath: codingPath)
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
        let path = nextPath
        try node.appendElement().encode(value, codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        return NodeEncoder(node: node.appendElement(), codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return NodeEncoder(node: node.appendElement(), codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return NodeEncoder(node: node.appendElement(), codingPath: path)
    }

    /// The coding path of the element appended next (taken before appending it).
    private var nextPath: [any CodingKey] { codingPath + [IndexKey(count)] }
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
