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
