import Foundation

/// Any JSON value as a `HandlerValue`, read and written with the same strict, deterministic JSON as
/// handler documents: for documents that embed handler documents (saved event subscriptions) and for
/// values stored outside a handler document that handlers receive later (a signal's payload).
extension HandlerValue {
    /// Encodes `value` as a bound value would be encoded (so a handler parameter of its type decodes it).
    ///
    /// - Throws: the value's own encoding error.
    public init(encoding value: some Encodable) throws {
        self = try HandlerValueEncoder.encode(value)
    }

    /// Parses `json` as one JSON value, enforcing `limits` (size and nesting depth).
    ///
    /// - Throws: `HandlerError.malformedJSON` (with line, column and byte offset),
    ///   `.documentTooLarge` or `.nestingTooDeep`.
    public init(json: some Collection<UInt8>, limits: DecodingLimits = .default) throws(HandlerError) {
        guard json.count <= limits.maximumDocumentSize else {
            throw .documentTooLarge(size: json.count, limit: limits.maximumDocumentSize)
        }
        let parsed = json.withContiguousStorageIfAvailable { buffer in
            Result { () throws(HandlerError) in try JSONReader.parse(buffer, maximumDepth: limits.effectiveDepth) }
        }
        if let parsed {
            self = try parsed.get()
        } else {
            self = try Array(json).withUnsafeBufferPointer { buffer throws(HandlerError) in
                try JSONReader.parse(buffer, maximumDepth: limits.effectiveDepth)
            }
        }
    }

    /// The value as JSON: members sorted, numbers as their exact text, identical bytes for equal values.
    public func jsonData(prettyPrinted: Bool = false) -> Data {
        Data(jsonBytes(prettyPrinted: prettyPrinted))
    }
}
