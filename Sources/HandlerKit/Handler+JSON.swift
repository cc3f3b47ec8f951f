import Foundation

/// The handler document (HANDLERKIT.md §3): versioned, deterministic, human-readable JSON.
///
/// ```json
/// {"bound":{"flag":true,"limit":3,"name":"inbox","ratio":0.25},"id":"Mail.fetched","invalidation":"Mail.cancelled","version":1}
/// ```
///
/// Members are sorted; `invalidation` is present only when there is an invalidation target. Bound
/// values whose names no parameter has (e.g. a parameter removed in a later version of the app)
/// are kept, so a document round-trips exactly, and are ignored when calling.
extension Handler {
    /// The document version this runtime writes and reads.
    public static let documentVersion = 1

    // MARK: Decoding

    /// Rebuilds a handler from its JSON document.
    ///
    /// Checks the size and nesting limits, the document's shape and version, that `id` and
    /// `invalidation` are registered, and every bound value against its parameter's type.
    public convenience init(
        json: some Collection<UInt8>, registry: HandlerRegistry = .shared, limits: DecodingLimits = .default
    ) throws(HandlerError) {
        let value = try Self.parseDocument(json, limits: limits)
        try self.init(documentValue: value, context: DecodingContext(registry: registry, limits: limits))
    }

    /// Rebuilds a handler from its JSON document given as text.
    public convenience init(
        json: String, registry: HandlerRegistry = .shared, limits: DecodingLimits = .default
    ) throws(HandlerError) {
        try self.init(json: json.utf8, registry: registry, limits: limits)
    }

    /// Rebuilds a handler from its JSON document given as `Data`.
    public convenience init(
        json: Data, registry: HandlerRegistry = .shared, limits: DecodingLimits = .default
    ) throws(HandlerError) {
        let value = try Self.parseDocument(json, limits: limits)
        try self.init(documentValue: value, context: DecodingContext(registry: registry, limits: limits))
    }

    static func parseDocument(_ bytes: some Collection<UInt8>, limits: DecodingLimits) throws(HandlerError) -> HandlerValue {
        guard bytes.count <= limits.maximumDocumentSize else {
            throw .documentTooLarge(size: bytes.count, limit: limits.maximumDocumentSize)
        }
        let depth = limits.effectiveDepth
        let parsed: Result<HandlerValue, HandlerError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(HandlerError) in try JSONReader.parse(buffer, maximumDepth: depth) }
        }
        if let parsed { return try parsed.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer throws(HandlerError) in
            try JSONReader.parse(buffer, maximumDepth: depth)
        }
    }

    /// Builds a handler from a parsed document, checking it as `init(json:)` describes.
    convenience init(documentValue: HandlerValue, context: DecodingContext) throws(HandlerError) {
        guard case .object(let members) = documentValue else {
            throw .invalidDocument(path: "$", reason: "expected an object, found \(documentValue.kindDescription)")
        }
        var version: HandlerValue?
        var id: HandlerValue?
        var invalidation: HandlerValue?
        var boundValue: HandlerValue?
        for (name, value) in members {
            switch name {
            case "version": version = value
            case "id": id = value
            case "invalidation": invalidation = value
            case "bound": boundValue = value
            default:
                throw .invalidDocument(path: name, reason: "unknown member; a handler document has bound, id, invalidation, version")
            }
        }
        switch version {
        case .number(let text)? where text == String(Self.documentVersion): break
        case .number(let text)?: throw .unsupportedVersion(found: text, supported: Self.documentVersion)
        case nil: throw .invalidDocument(path: "version", reason: "missing")
        case let other?: throw .invalidDocument(path: "version", reason: "expected a number, found \(other.kindDescription)")
        }
        guard let id else { throw .invalidDocument(path: "id", reason: "missing") }
        let target = try context.registry.resolve(try Self.string(id, path: "id"), path: "id")
        let invalidationTarget = try invalidation.map { value throws(HandlerError) in
            try context.registry.resolve(try Self.string(value, path: "invalidation"), path: "invalidation")
        }
        var bound: [String: HandlerValue] = [:]
        switch boundValue {
        case .object(let values)?: bound = values
        case nil: break
        case let other?: throw .invalidDocument(path: "bound", reason: "expected an object, found \(other.kindDescription)")
        }
        for (name, value) in bound {
            try Self.validate(value, named: name, target: target, invalidationTarget: invalidationTarget, context: context)
        }
        self.init(target: target, invalidationTarget: invalidationTarget, bound: bound, context: context)
    }

    private static func string(_ value: HandlerValue, path: String) throws(HandlerError) -> String {
        guard case .string(let text) = value else {
            throw .invalidDocument(path: path, reason: "expected a string, found \(value.kindDescription)")
        }
        return text
    }

    // MARK: Encoding

    /// The document as a `HandlerValue`.
    public func documentValue() -> HandlerValue {
        var members: [String: HandlerValue] = [
            "version": .number(String(Self.documentVersion)),
            "id": .string(id),
            "bound": .object(boundValues),
        ]
        if let invalidationID { members["invalidation"] = .string(invalidationID) }
        return .object(members)
    }

    /// The JSON document: sorted members, compact by default, identical bytes for equal handlers.
    public func jsonData(prettyPrinted: Bool = false) -> Data {
        var writer = JSONWriter(prettyPrinted: prettyPrinted)
        writer.write(documentValue())
        return Data(writer.output)
    }

    /// The JSON document as text.
    public func jsonString(prettyPrinted: Bool = false) -> String {
        var writer = JSONWriter(prettyPrinted: prettyPrinted)
        writer.write(documentValue())
        return String(decoding: writer.output, as: UTF8.self)
    }
}
