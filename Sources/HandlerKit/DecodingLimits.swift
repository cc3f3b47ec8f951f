/// Limits that decoding a handler document enforces, so that untrusted or corrupt bytes cannot
/// exhaust memory or the stack.
public struct DecodingLimits: Sendable, Hashable {
    /// The largest document accepted, in bytes. Default: 4 MiB.
    public var maximumDocumentSize: Int
    /// How deeply arrays and objects may nest (the document's own object is level 1). Default: 64.
    /// Values above `DecodingLimits.depthCeiling` are lowered to it, because parsing is recursive.
    public var maximumDepth: Int

    /// The highest `maximumDepth` that is honoured.
    public static let depthCeiling = 512

    /// Limits with the given size in bytes and nesting depth.
    public init(maximumDocumentSize: Int = 4 * 1024 * 1024, maximumDepth: Int = 64) {
        self.maximumDocumentSize = maximumDocumentSize
        self.maximumDepth = maximumDepth
    }

    /// The defaults: 4 MiB and 64 levels.
    public static let `default` = DecodingLimits()

    var effectiveDepth: Int { max(1, min(maximumDepth, Self.depthCeiling)) }
}
