import HandlerKit

/// Defaults the generated code cannot repeat: they name private symbols of this file (a constant
/// declared after the handler, a member of a private extension). The shims leave them out when no
/// value is bound or passed, so Swift applies them here.
enum Paging {
    @handler
    static func fetch(page: Int, size: Int = pageSize, origin: String = Paging.origin) {
        Recorder.shared.record("fetch \(page) \(size) \(origin)")
    }
}

private extension Paging {
    static let origin = "inbox"
}

private let pageSize = 25
