import HandlerKit

/// The named values posted with a signal. Each is encoded at once, as a bound value of a handler
/// would be, and stored; the consumer's handler receives them as call-time arguments (a parameter
/// takes the value of its own name; values no parameter takes are ignored). A `nil` value is absent.
///
/// ```swift
/// try await center.post(signal, payload: ["success": true, "path": "/Photos/1.jpg"])
/// ```
///
/// A payload must be one a delivery can read: at most `DecodingLimits.default.maximumDocumentSize`
/// bytes of JSON (`Data` is stored as base64, a third larger), and each value nesting no deeper than
/// a bound value of the consumer's handler may (`DecodingLimits.default.maximumDepth` levels, two of
/// them the handler document's object and its `bound` object). `post` refuses others.
public struct SignalPayload: Sendable, ExpressibleByDictionaryLiteral {
    /// The names HandlerKitSignals passes to handlers itself: not allowed in a payload.
    static let reservedNames: Set<String> = ["deliveryKey", "signalID", "signalRevision", PostContext.member]

    private(set) var values: [String: HandlerValue] = [:]
    private var failures: [(name: String, failure: Failure)] = []

    /// Why a value could not be taken.
    private enum Failure {
        case encoding(reason: String)
        case tooDeep(path: String, limit: Int)
    }

    public init() {}

    public init(dictionaryLiteral elements: (String, (any Encodable)?)...) {
        for (name, value) in elements {
            if let value { set(name, value) }
        }
    }

    /// Sets the value of `name`; `nil` removes it.
    public mutating func set(_ name: String, _ value: (any Encodable)?) {
        guard let value else {
            values[name] = nil
            return
        }
        do {
            // Where a delivery puts it: bound to the consumer's handler, inside its document's
            // object and `bound` object.
            values[name] = try HandlerValue(encoding: value, enclosingLevels: 2, path: name)
        } catch HandlerError.valueTooDeep(_, let path, let limit) {
            failures.append((name, .tooDeep(path: path, limit: limit)))
        } catch {
            failures.append((name, .encoding(reason: "cannot be encoded: \(error)")))
        }
    }

    /// The stored form: one JSON object.
    func encoded(for signal: String) throws(SignalError) -> [UInt8] {
        try validate(for: signal)
        return try sized(for: signal)
    }

    /// Throws what makes the payload unusable whatever its size.
    private func validate(for signal: String) throws(SignalError) {
        switch failures.first {
        case (let name, .encoding(let reason))?: throw .invalidPayload(signal: signal, argument: name, reason: reason)
        case (_, .tooDeep(let path, let limit))?: throw .payloadTooDeep(signal: signal, path: path, limit: limit)
        case nil: break
        }
        if let reserved = values.keys.sorted().first(where: Self.reservedNames.contains) {
            throw .invalidPayload(
                signal: signal, argument: reserved,
                reason: "this name is reserved: handlers receive it from HandlerKitSignals itself")
        }
    }

    /// The payload's bytes, or `payloadTooLarge` naming its largest value.
    private func sized(for signal: String) throws(SignalError) -> [UInt8] {
        let bytes = [UInt8](HandlerValue.object(values).jsonData())
        let limit = DecodingLimits.default.maximumDocumentSize
        guard bytes.count > limit else { return bytes }
        var largest: (name: String, size: Int)?
        for name in values.keys.sorted() {
            let size = values[name]?.jsonData().count ?? 0
            if size > largest?.size ?? -1 { largest = (name, size) }
        }
        throw .payloadTooLarge(signal: signal, size: bytes.count, limit: limit, largestValue: largest?.name ?? "")
    }

    /// The stored form with the post's `context` (when it was posted, the poster's trace context)
    /// as one more member. The context is left out of a payload it would push over the size limit:
    /// it never makes a payload a delivery could read unreadable.
    /// Encoded once when it fits, as nearly every payload does.
    func encoded(for signal: String, context: PostContext) throws(SignalError) -> [UInt8] {
        try validate(for: signal)
        var members = values
        members[PostContext.member] = context.value
        let withContext = [UInt8](HandlerValue.object(members).jsonData())
        if withContext.count <= DecodingLimits.default.maximumDocumentSize { return withContext }
        return try sized(for: signal)
    }
}
