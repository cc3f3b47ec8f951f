import Foundation

/// Any JSON value as a `HandlerValue`, read and written with the same strict, deterministic JSON as
/// handler documents: for documents that embed handler documents (saved event subscriptions) and for
/// values stored outside a handler document that handlers receive later (a signal's payload).
extension HandlerValue {
    /// Encodes `value` as a bound value would be encoded (so a handler parameter of its type decodes it).
    ///
    /// The value may nest as deep as a document read with `DecodingLimits.default` (its own outermost
    /// array or object is level 1); encoding stops as soon as it goes deeper, whatever the type.
    ///
    /// - Throws: `HandlerError.valueTooDeep` with the coding path of the first array or object too
    ///   deep (e.g. `items[3].children[0]`); or the value's own encoding error.
    public init(encoding value: some Encodable) throws {
        self = try HandlerValueEncoder.encode(value)
    }

    /// Encodes `value` to sit in a document inside `enclosingLevels` arrays and objects, at `path`:
    /// as `init(encoding:)`, with the levels around it counted against the depth limit and `path`
    /// leading the path of a `HandlerError.valueTooDeep`.
    package init(encoding value: some Encodable, enclosingLevels: Int, path: String) throws {
        self = try HandlerValueEncoder.encode(value, at: ValuePlace(enclosingLevels: enclosingLevels, path: path))
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
    /// Written without recursion, so a value of any depth is written (`init(json:)` reads back only
    /// what its limits allow).
    public func jsonData(prettyPrinted: Bool = false) -> Data {
        Data(jsonBytes(prettyPrinted: prettyPrinted))
    }
}
