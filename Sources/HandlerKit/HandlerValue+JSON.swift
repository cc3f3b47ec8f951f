import Foundation

/// Any JSON value as a `HandlerValue`, read and written with the same strict, deterministic JSON as
/// handler documents: for documents that embed handler documents (e.g. saved event subscriptions).
extension HandlerValue {
    /// Parses `json` as one JSON value, enforcing `limits` (size and nesting depth).
    ///
    /// - Throws: `HandlerError.malformedJSON` (with line, column and byte offset),
    ///   `.documentTooLarge` or `.nestingTooDeep`.
    public init(json: some Collection<UInt8>, limits: DecodingLimits = .default) throws(HandlerError) {
        guard json.count <= limits.maximumDocumentSize else {
            throw .documentTooLarge(size: json.count, limit: limits.maximumDocumentSize)
        }
        let bytes = Array(json)
        self = try bytes.withUnsafeBufferPointer { buffer throws(HandlerError) in
            try JSONReader.parse(buffer, maximumDepth: limits.effectiveDepth)
        }
    }

    /// The value as JSON: members sorted, numbers as their exact text, identical bytes for equal values.
    public func jsonData(prettyPrinted: Bool = false) -> Data {
        var writer = JSONWriter(prettyPrinted: prettyPrinted)
        writer.write(self)
        return Data(writer.output)
    }
}
