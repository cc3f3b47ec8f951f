import Foundation
import HandlerKit

/// The second process: rebuilds the handlers from the file the first process wrote, calls them with
/// call-time values, and invalidates one. Every step checks that the handler it expected ran.
enum SecondProcess {
    static func run(file: String) async throws {
        Say.line("Started by the first process (parent pid \(getppid())) to replay \(file)")
        try HandlerRegistry.shared.register(.handlerkit_demo)
        Say.line("Registered this module's handlers: only these ids can be reached from JSON")

        let handlers = try rebuild(file)
        let byID = Dictionary(handlers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        func handler(_ id: String) throws -> Handler {
            guard let handler = byID[id] else { throw DemoFailure("the file has no handler \(id)") }
            return handler
        }

        Say.line("Calling each handler with call-time values (bound values come from the JSON):")
        // The generated typed call: the compiler checks the call-time value's name and type.
        try expect("Greeter.greet", "call Greeter.greet with greeting: \"Welcome back\" (generated typed call)") {
            try Greeter.callGreetHandler(handler("Greeter.greet"), greeting: "Welcome back")
        }
        // The dynamic form: call-time values by name, checked when the handler runs.
        try expect("Mailbox.deliver", "call Mailbox.deliver with urgent: true") {
            try handler("Mailbox.deliver").callSynchronously(["urgent": true])
        }
        try await expectAsync("Downloads.fetch", "call Downloads.fetch with attempt: 1, awaited (generated typed call)")
        {
            try await Downloads.callFetchHandler(handler("Downloads.fetch"), attempt: 1)
        }
        try expect("Upload.progress", "call Upload.progress with percent: 40") {
            try handler("Upload.progress").callSynchronously(["percent": 40])
        }

        Say.line("Invalidating the upload handler: its invalidation handler runs once with the bound file")
        try expect("Upload.cancelled", "invalidate Upload.progress with reason: \"user pressed cancel\"") {
            try handler("Upload.progress").invalidateSynchronously(["reason": "user pressed cancel"])
        }

        Say.line("Checking the errors a careless caller gets (thrown, typed, never a crash):")
        try expectError("calling the invalidated upload handler") {
            try handler("Upload.progress").callSynchronously(["percent": 90])
        }
        try await expectErrorAsync("calling Downloads.fetch without its mandatory 'attempt'") {
            try await handler("Downloads.fetch").call()
        }
        try expectError("rebuilding a document that names an unregistered function") {
            _ = try Handler(json: #"{"bound":{"path":"/"},"id":"Shell.removeAll","version":1}"#)
        }
        try await EventsStep.restoreAndSend(next: URL(fileURLWithPath: file))
        Say.line("All steps passed")
    }

    /// The handlers in `file`, one JSON document per line.
    static func rebuild(_ file: String) throws -> [Handler] {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        var handlers: [Handler] = []
        for line in text.split(separator: "\n") where !line.isEmpty {
            let handler = try Handler(json: String(line))
            Say.line("Rebuilt from JSON: \(handler)")
            handlers.append(handler)
        }
        return handlers
    }

    /// Says `action`, runs `step` and checks that it ran exactly the handler `id`.
    static func expect(_ id: String, _ action: String, _ step: () throws -> Void) throws {
        Say.line(action)
        try step()
        try checkRan(id)
    }

    /// Says `action`, runs the async `step` and checks that it ran exactly the handler `id`.
    static func expectAsync(_ id: String, _ action: String, _ step: () async throws -> Void) async throws {
        Say.line(action)
        try await step()
        try checkRan(id)
    }

    static func checkRan(_ id: String) throws {
        let ran = DemoLog.shared.takeRanIDs()
        guard ran == [id] else { throw DemoFailure("expected \(id) to run once; ran: \(ran)") }
    }

    /// Runs `step` and checks that it throws a `HandlerError` without running any handler.
    static func expectError(_ what: String, _ step: () throws -> Void) throws {
        do {
            try step()
        } catch let error as HandlerError {
            return try reportExpected(error, what)
        }
        throw DemoFailure("\(what) did not throw")
    }

    /// Runs the async `step` and checks that it throws a `HandlerError` without running any handler.
    static func expectErrorAsync(_ what: String, _ step: () async throws -> Void) async throws {
        do {
            try await step()
        } catch let error as HandlerError {
            return try reportExpected(error, what)
        }
        throw DemoFailure("\(what) did not throw")
    }

    static func reportExpected(_ error: HandlerError, _ what: String) throws {
        Say.line("\(what) -> HandlerError: \(error)")
        let ran = DemoLog.shared.takeRanIDs()
        guard ran.isEmpty else { throw DemoFailure("\(what) ran \(ran)") }
    }
}
