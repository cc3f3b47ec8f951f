/// A handler can be a value inside other `Codable` types, and a bound value of another handler
/// (a nested handler). With HandlerKit's own coding it is stored as its document;
/// with other coders (e.g. `JSONEncoder`) as the document's members.
extension Handler: Codable {
    public func encode(to encoder: any Encoder) throws {
        try documentValue().encode(to: encoder)
    }

    /// Decodes a handler; its ids are looked up in the registry found under
    /// `CodingUserInfoKey.handlerRegistry` in the decoder's `userInfo`, else in `HandlerRegistry.shared`.
    public convenience init(from decoder: any Decoder) throws {
        let value = try HandlerValue(from: decoder)
        let registry = decoder.userInfo[.handlerRegistry] as? HandlerRegistry ?? .shared
        try self.init(documentValue: value, context: DecodingContext(registry: registry, limits: .default))
    }
}

extension CodingUserInfoKey {
    /// The `HandlerRegistry` that decoding a `Handler` with a foreign decoder uses.
    public static let handlerRegistry: CodingUserInfoKey = {
        guard let key = CodingUserInfoKey(rawValue: "HandlerKit.handlerRegistry") else {
            preconditionFailure("a constant, non-empty raw value is always a valid CodingUserInfoKey")
        }
        return key
    }()
}

/// `HandlerValue` with other coders: numbers become the narrowest of `Int64`, `UInt64` and `Double`
/// that holds them (HandlerKit's own coding keeps their text instead). Arrays and objects nested
/// deeper than `DecodingLimits.depthCeiling` in the coder's coding path are refused with an error,
/// since each level is a nested call.
extension HandlerValue: Codable {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .array, .object:
            guard encoder.codingPath.count < DecodingLimits.depthCeiling else {
                throw EncodingError.invalidValue(
                    self,
                    .init(
                        codingPath: encoder.codingPath,
                        debugDescription:
                            "nests deeper than \(DecodingLimits.depthCeiling) levels (DecodingLimits.depthCeiling)"))
            }
        case .null, .bool, .number, .string: break
        }
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let integer = Int64(text) {
                try container.encode(integer)
            } else if let unsigned = UInt64(text) {
                try container.encode(unsigned)
            } else {
                try container.encode(Double(text) ?? .nan)
            }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for name in members.keys.sorted() {
                try container.encode(members[name] ?? .null, forKey: MemberKey(name))
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count < DecodingLimits.depthCeiling else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "nests deeper than \(DecodingLimits.depthCeiling) levels (DecodingLimits.depthCeiling)"))
        }
        if let keyed = try? decoder.container(keyedBy: MemberKey.self) {
            var members: [String: HandlerValue] = [:]
            for key in keyed.allKeys { members[key.stringValue] = try keyed.decode(HandlerValue.self, forKey: key) }
            self = .object(members)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [HandlerValue] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(HandlerValue.self)) }
            self = .array(elements)
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let integer = try? container.decode(Int64.self) {
                self = .number(String(integer))
            } else if let unsigned = try? container.decode(UInt64.self) {
                self = .number(String(unsigned))
            } else if let double = try? container.decode(Double.self) {
                self = double.handlerValue
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }
}
