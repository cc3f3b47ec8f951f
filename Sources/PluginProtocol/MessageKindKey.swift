/// The coding key of a protocol message: every message is a JSON object with exactly one key, the
/// message kind (e.g. `getCapability`), whose value holds the message's fields.
struct MessageKindKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) {
        stringValue = string
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }

    /// The single kind key of a message object.
    static func single(
        in container: KeyedDecodingContainer<MessageKindKey>, decoder: any Decoder
    ) throws -> MessageKindKey {
        let keys = container.allKeys
        guard keys.count == 1, let key = keys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "a message must be an object with exactly one key, found \(keys.count)"
                )
            )
        }
        return key
    }
}
