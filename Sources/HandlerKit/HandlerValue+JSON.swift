import Foundation

/// Values outside a handler document — e.g. a signal's payload, stored by `HandlerKitSignals` and
/// passed to handlers later — in the same exact form and JSON as bound values.
extension HandlerValue {
    /// Encodes `value` as a bound value would be encoded (so a handler parameter of its type decodes it).
    ///
    /// - Throws: the value's own encoding error.
    public init(encoding value: some Encodable) throws {
        self = try HandlerValueEncoder.encode(value)
    }

    /// Reads a JSON value, checked against `limits` (size and nesting depth).
    ///
    /// - Throws: `HandlerError.malformedJSON` (with line, column and byte offset),
    ///   `.documentTooLarge` or `.nestingTooDeep`.
    public init(json: Data, limits: DecodingLimits = .default) throws(HandlerError) {
        guard json.count <= limits.maximumDocumentSize else {
            throw .documentTooLarge(size: json.count, limit: limits.maximumDocumentSize)
        }
        let parsed = json.withUnsafeBytes { raw in
            Result { () throws(HandlerError) in
                try JSONReader.parse(raw.bindMemory(to: UInt8.self), maximumDepth: limits.effectiveDepth)
            }
        }
        self = try parsed.get()
    }

    /// The value as compact JSON with sorted members; numbers keep their exact text.
    public func jsonData() -> Data {
        var writer = JSONWriter(prettyPrinted: false)
        writer.write(self)
        return Data(writer.output)
    }
}
