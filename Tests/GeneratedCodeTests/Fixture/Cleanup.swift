import HandlerKit

/// A file-scope handler with a stable explicit id.
@handler(id: "cleanup.v1")
func cleanUp(reason: String) {
    Recorder.shared.record("cleanUp \(reason)")
}

/// A file-scope handler without parameters.
@handler
func ping() {
    Recorder.shared.record("ping")
}

/// An optional parameter with a non-nil default.
@handler
func greet(name: String? = "world") {
    Recorder.shared.record("greet \(name ?? "nil")")
}

/// A nested handler is a value too: bound, stored in the JSON, called by the outer one.
@handler
func chain(next: Handler, times: Int = 1) throws {
    for _ in 0..<times { try next.callSynchronously() }
}
