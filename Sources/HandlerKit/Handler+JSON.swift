#if canImport(FoundationEssentials)
import FoundationEssentials  // Data and URL, without the rest of Foundation (a client build indexes less)
#else
import Foundation
#endif

/// The handler document: versioned, deterministic, human-readable JSON.
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
        guard json.count <= limits.maximumDocumentSize else {
            throw .documentTooLarge(size: json.count, limit: limits.maximumDocumentSize)
        }
        let parts: DocumentParts
        if let parsed = json.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(HandlerError) in try Self.parseDocument(buffer, limits: limits, registry: registry) }
        }) {
            parts = try parsed.get()
        } else {
            parts = try Array(json).withUnsafeBufferPointer { buffer throws(HandlerError) in
                try Self.parseDocument(buffer, limits: limits, registry: registry)
            }
        }
        try self.init(parts: parts, context: DecodingContext(registry: registry, limits: limits))
    }

    /// Rebuilds a handler from its JSON document given as bytes.
    public convenience init(
        json: [UInt8], registry: HandlerRegistry = .shared, limits: DecodingLimits = .default
    ) throws(HandlerError) {
        let parts = try json.withUnsafeBufferPointer { buffer throws(HandlerError) in
            try Self.parseDocument(buffer, limits: limits, registry: registry)
        }
        try self.init(parts: parts, context: DecodingContext(registry: registry, limits: limits))
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
        let parsed = json.withUnsafeBytes { raw in
            Result { () throws(HandlerError) in
                try Self.parseDocument(raw.bindMemory(to: UInt8.self), limits: limits, registry: registry)
            }
        }
        try self.init(parts: parsed.get(), context: DecodingContext(registry: registry, limits: limits))
    }

    /// The parts of the document in `buffer`, parsed and checked for its size, depth and shape.
    static func parseDocument(
        _ buffer: UnsafeBufferPointer<UInt8>, limits: DecodingLimits, registry: HandlerRegistry
    ) throws(HandlerError) -> DocumentParts {
        guard buffer.count <= limits.maximumDocumentSize else {
            throw .documentTooLarge(size: buffer.count, limit: limits.maximumDocumentSize)
        }
        let depth = limits.effectiveDepth
        if let parts = try JSONReader.parseDocument(buffer, maximumDepth: depth, registry: registry.index) {
            return parts
        }
        let value = try JSONReader.parse(buffer, maximumDepth: depth)
        throw .invalidDocument(path: "$", reason: "expected an object, found \(value.kindDescription)")
    }

    /// Rebuilds a handler from its document as a `HandlerValue` (e.g. one embedded in a larger JSON
    /// document), checking it as `init(json:)` describes; its nesting against `limits.maximumDepth`.
    ///
    /// - Throws: `HandlerError.valueTooDeep` for a value nesting deeper than `limits` allow, and the
    ///   errors of `init(json:)` about the document's shape, ids and bound values.
    public convenience init(
        documentValue: HandlerValue, registry: HandlerRegistry = .shared, limits: DecodingLimits = .default
    ) throws(HandlerError) {
        try self.init(documentValue: documentValue, context: DecodingContext(registry: registry, limits: limits))
    }

    /// Builds a handler from a nested document value, checking it as `init(json:)` describes.
    convenience init(documentValue: HandlerValue, context: DecodingContext) throws(HandlerError) {
        // Built by the caller or a foreign decoder, so of any depth: decoding the bound values
        // recurses as deep as they nest.
        let depth = context.limits.effectiveDepth
        if documentValue.survey(at: .alone, maximumLevel: depth, checkingNumbers: false).exceedsDepth,
            case .tooDeep(let path)? = documentValue.firstProblem(
                at: .alone, maximumLevel: depth, checkingNumbers: false)
        {
            throw .valueTooDeep(handler: nil, path: path, limit: depth)
        }
        guard case .object(let members) = documentValue else {
            throw .invalidDocument(path: "$", reason: "expected an object, found \(documentValue.kindDescription)")
        }
        try self.init(parts: DocumentParts(members: members), context: context)
    }

    /// Builds a handler from a document's parts: checks the members, the version, the ids and the
    /// bound values.
    convenience init(parts: DocumentParts, context: DecodingContext) throws(HandlerError) {
        if let name = parts.unknownMember {
            throw .invalidDocument(
                path: name, reason: "unknown member; a handler document has bound, id, invalidation, version")
        }
        switch parts.version {
        case .number(let text)? where text == Self.documentVersionText: break
        case .number(let text)?: throw .unsupportedVersion(found: text, supported: Self.documentVersion)
        case nil: throw .invalidDocument(path: "version", reason: "missing")
        case let other?:
            throw .invalidDocument(path: "version", reason: "expected a number, found \(other.kindDescription)")
        }
        guard let id = parts.id else { throw .invalidDocument(path: "id", reason: "missing") }
        let target: HandlerDescriptor
        if let resolved = parts.target {
            target = resolved
        } else {
            target = try context.registry.resolve(try Self.string(id, path: "id"), path: "id")
        }
        var invalidationTarget = parts.invalidationTarget
        if invalidationTarget == nil, let value = parts.invalidation {
            invalidationTarget = try context.registry.resolve(
                try Self.string(value, path: "invalidation"), path: "invalidation")
        }
        if let other = parts.boundOther {
            throw .invalidDocument(path: "bound", reason: "expected an object, found \(other.kindDescription)")
        }
        var bound = parts.bound ?? []
        Self.renameFormerParameters(&bound, target: target, invalidationTarget: invalidationTarget)
        for entry in bound {
            try Self.validate(
                entry.value, named: entry.name, target: target,
                invalidationTarget: invalidationTarget, context: context)
        }
        self.init(
            target: target, invalidationTarget: invalidationTarget,
            bound: BoundValues(bound, context: context), context: context)
    }

    private static let documentVersionText = String(documentVersion)

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

    /// The compact JSON document, when `Handler(json:)` reads it back with `DecodingLimits.default`:
    /// what a caller that stores the handler to rebuild it later (a signal center registering a
    /// consumer) writes. Bound values are checked one by one when they are bound; here the document
    /// as a whole is.
    ///
    /// - Throws: `HandlerError.valueTooDeep` or `.valueTooLarge` (its `path` the largest bound value),
    ///   without a handler id: the caller's error names the handler.
    package func storableJSON() throws(HandlerError) -> [UInt8] {
        let document = documentValue()
        let depth = ValuePlace.maximumLevel
        if document.survey(at: .alone, maximumLevel: depth, checkingNumbers: false).exceedsDepth,
            case .tooDeep(let path)? = document.firstProblem(at: .alone, maximumLevel: depth, checkingNumbers: false)
        {
            throw .valueTooDeep(handler: nil, path: path, limit: depth)
        }
        let bytes = document.jsonBytes(prettyPrinted: false)
        guard bytes.count > ValuePlace.maximumSize else { return bytes }
        var largest: (name: String, size: Int)?
        let values = boundValues
        for name in values.keys.sorted() {
            let size = values[name]?.jsonBytes(prettyPrinted: false).count ?? 0
            if size > largest?.size ?? -1 { largest = (name, size) }
        }
        throw .valueTooLarge(
            handler: nil, path: largest.map { ValuePlace.bound($0.name).path } ?? "", size: bytes.count,
            limit: ValuePlace.maximumSize)
    }

    /// The JSON document: sorted members, compact by default, identical bytes for equal handlers.
    public func jsonData(prettyPrinted: Bool = false) -> Data {
        Data(documentValue().jsonBytes(prettyPrinted: prettyPrinted))
    }

    /// The JSON document as text.
    public func jsonString(prettyPrinted: Bool = false) -> String {
        String(decoding: documentValue().jsonBytes(prettyPrinted: prettyPrinted), as: UTF8.self)
    }
}
