import HandlerKit

/// Handlers isolated to the main actor, in each way the scanner sees: the type's attribute, the
/// function's, and the extension's. Each uses main-actor state synchronously, which compiles only
/// because the shims call them on the main actor.
@MainActor
enum Banner {
    /// Main-actor state the handler uses.
    static var shown: [String] = []

    @handler
    static func show(text: String) {
        shown.append(text)
        Recorder.shared.record("show \(text)")
    }
}

enum Screens {
    @MainActor @handler
    static func present(title: String) async {
        Banner.shown.append("present")
        Recorder.shared.record("present \(title)")
    }
}

@MainActor
extension Screens {
    @handler
    static func dismiss(animated: Bool = true) {
        Banner.shown.append("dismiss")
        Recorder.shared.record("dismiss \(animated)")
    }
}
