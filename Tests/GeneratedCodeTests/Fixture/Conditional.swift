import HandlerKit

/// Handlers under `#if`: the generated code must keep the same conditions, or it would not compile
/// (the inactive branches name things that do not exist).
enum Conditional {
    #if os(Linux) || os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(Windows)
    @handler
    static func active(value: Int) {
        Recorder.shared.record("active \(value)")
    }
    #endif

    #if HANDLERKIT_NEVER_DEFINED
    @handler
    static func inactive(value: TypeThatDoesNotExist) {}
    #elseif HANDLERKIT_ALSO_NEVER_DEFINED
    @handler
    static func alsoInactive(value: AnotherMissingType) {}
    #else
    @handler
    static func fallback(value: String = "fallback") {
        Recorder.shared.record("fallback \(value)")
    }
    #endif
}
