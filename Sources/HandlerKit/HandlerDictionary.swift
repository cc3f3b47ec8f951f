import Foundation

/// Handlers stored under keys in one JSON object, decoded entry by entry: an entry that no longer
/// decodes does not make the others unreadable.
///
/// A `[String: Handler]` is `Codable`, but decoding it fails as a whole at its first bad entry — one
/// whose handler a later version of the app removed, or whose bound value no longer fits its
/// parameter. `HandlerDictionary` keeps the entries that decode in ``handlers`` and reports each one
/// that does not in ``failures``, with its key and error. A failed entry's JSON is kept and written
/// back unchanged when the dictionary is saved, so reading and saving again loses nothing:
///
/// ```swift
/// var pending = try HandlerDictionary(json: Data(contentsOf: url))
/// for failure in pending.failures {
///     print(failure)  // handler entry 'f-17': unknown handler id 'Uploads.retried' at 'id': …
/// }
/// pending.handlers["f-43"] = try Uploads.finishedHandler(fileID: "f-43")
/// try pending.jsonData().write(to: url, options: .atomic)
/// ```
///
/// The stored form is a JSON object whose members are handler documents, sorted by key:
///
/// ```json
/// {"f-17":{"bound":{"fileID":"f-17"},"id":"Uploads.retried","version":1}}
/// ```
///
/// `HandlerDictionary` is also `Codable`, so it can be a property of your own `Codable` types and
/// decode leniently there too (with `JSONDecoder`, numbers are read as `JSONDecoder` reads them; the
/// registry is the one under `CodingUserInfoKey.handlerRegistry`, else `HandlerRegistry.shared`).
public struct HandlerDictionary: Sendable {
    /// The entries that decoded, by key. Setting a key that has a failed entry replaces that entry
    /// when the dictionary is saved.
    public var handlers: [String: Handler]
    /// The entries that did not decode, sorted by key. They are written back unchanged when the
    /// dictionary is saved, unless ``handlers`` has an entry with the same key; remove one to drop it.
    public var failures: [HandlerEntryError]

    /// Creates a dictionary of the given handlers, with no failed entries.
    public init(_ handlers: [String: Handler] = [:]) {
        self.handlers = handlers
        self.failures = []
    }

    /// Reads a JSON object of handler documents, entry by entry.
    ///
    /// Each entry is checked as `Handler(json:registry:limits:)` checks a document alone (`limits`
    /// apply to each entry, its size counted as written compactly); an entry that fails goes to
    /// ``failures`` and the others are read. The object as a whole may nest one level deeper than
    /// `limits.maximumDepth`; its size is not limited (you read it into memory before this).
    ///
    /// - Throws: a `HandlerError` only when the bytes are not a JSON object (`.malformedJSON` with
    ///   line and column, `.nestingTooDeep`, or `.invalidDocument` at `$` for another kind of value).
    public init(
        json: some Collection<UInt8>, registry: HandlerRegistry = .shared, limits: DecodingLimits = .default
    ) throws(HandlerError) {
        let maximumDepth = limits.effectiveDepth + 1
        let parsed = json.withContiguousStorageIfAvailable { buffer in
            Result { () throws(HandlerError) in try JSONReader.parse(buffer, maximumDepth: maximumDepth) }
        }
        let value: HandlerValue
        if let parsed {
            value = try parsed.get()
        } else {
            value = try Array(json).withUnsafeBufferPointer { buffer throws(HandlerError) in
                try JSONReader.parse(buffer, maximumDepth: maximumDepth)
            }
        }
        guard case .object(let entries) = value else {
            throw .invalidDocument(
                path: "$", reason: "expected an object of handler documents by key, found \(value.kindDescription)")
        }
        self.init(entries: entries, context: DecodingContext(registry: registry, limits: limits))
    }

    /// Reads a JSON object of handler documents given as text; see `init(json:registry:limits:)`.
    public init(
        json: String, registry: HandlerRegistry = .shared, limits: DecodingLimits = .default
    ) throws(HandlerError) {
        try self.init(json: json.utf8, registry: registry, limits: limits)
    }

    /// Decodes each entry, in key order, into ``handlers`` or ``failures``.
    init(entries: [String: HandlerValue], context: DecodingContext) {
        handlers = [:]
        failures = []
        for key in entries.keys.sorted() {
            guard let entry = entries[key] else { continue }
            do throws(HandlerError) {
                handlers[key] = try Self.handler(entry, context: context)
            } catch {
                failures.append(HandlerEntryError(key: key, error: error, json: entry))
            }
        }
    }

    private static func handler(_ entry: HandlerValue, context: DecodingContext) throws(HandlerError) -> Handler {
        let size = entry.jsonBytes(prettyPrinted: false).count
        guard size <= context.limits.maximumDocumentSize else {
            throw .documentTooLarge(size: size, limit: context.limits.maximumDocumentSize)
        }
        return try Handler(documentValue: entry, context: context)
    }

    // MARK: Encoding

    /// The stored form: the failed entries as they were read, then every handler's document by key
    /// (replacing a failed entry of the same key).
    public func documentValue() -> HandlerValue {
        var members: [String: HandlerValue] = [:]
        for failure in failures where members[failure.key] == nil {
            members[failure.key] = failure.json
        }
        for (key, handler) in handlers {
            members[key] = handler.documentValue()
        }
        return .object(members)
    }

    /// The JSON object of handler documents by key: sorted members, compact by default, identical
    /// bytes for equal contents.
    public func jsonData(prettyPrinted: Bool = false) -> Data {
        Data(documentValue().jsonBytes(prettyPrinted: prettyPrinted))
    }

    /// The JSON object of handler documents by key, as text.
    public func jsonString(prettyPrinted: Bool = false) -> String {
        String(decoding: documentValue().jsonBytes(prettyPrinted: prettyPrinted), as: UTF8.self)
    }
}

extension HandlerDictionary: Codable {
    /// Encodes the stored form (see ``documentValue()``).
    public func encode(to encoder: any Encoder) throws {
        try documentValue().encode(to: encoder)
    }

    /// Decodes an object of handler documents entry by entry, with the registry found under
    /// `CodingUserInfoKey.handlerRegistry` in the decoder's `userInfo`, else `HandlerRegistry.shared`.
    ///
    /// - Throws: a `DecodingError` only when the value is not an object; entries that do not decode
    ///   go to ``failures``.
    public init(from decoder: any Decoder) throws {
        let entries = try [String: HandlerValue](from: decoder)
        let registry = decoder.userInfo[.handlerRegistry] as? HandlerRegistry ?? .shared
        self.init(entries: entries, context: DecodingContext(registry: registry, limits: .default))
    }
}
