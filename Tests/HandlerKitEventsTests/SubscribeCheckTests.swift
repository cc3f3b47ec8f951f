import HandlerKit
import HandlerKitEvents
import Testing

/// A handler is checked when it subscribes, with a typed error naming the event, handler and parameter.
@Suite struct SubscribeCheckTests {
    @Test func aMandatoryParameterNeitherBoundNorSuppliedIsRefused() throws {
        let registry = try makeRegistry(Recorder())
        let event = Event<Player.Type, Int>("counted", key: "Player.counted")
        let handler = try Handler(id: "Log.account", registry: registry)
        #expect(
            throws: EventError.missingArgument(
                event: "Player.counted", handler: "Log.account", argument: "account", expectedType: "String")
        ) {
            try event.subscribe(handler)
        }
        #expect(event.subscriptions.isEmpty)
        let error = EventError.missingArgument(
            event: "Player.counted", handler: "Log.account", argument: "account", expectedType: "String")
        #expect(
            error.description.contains("'Log.account'") && error.description.contains("'account'")
                && error.description.contains("Player.counted"))
        // The same handler with the value bound is accepted.
        try event.subscribe(Handler(id: "Log.account", bound: ["account": "ada"], registry: registry))
    }

    @Test func aDataParameterThatCannotTakeThePayloadIsRefused() throws {
        let registry = try makeRegistry(Recorder())
        let strings = Event<Player.Type, String>("named", key: "Player.named")
        #expect(
            throws: EventError.argumentTypeMismatch(
                event: "Player.named", handler: "Log.count", argument: "data",
                expectedType: "Int", suppliedType: "String")
        ) {
            try strings.subscribe(Handler(id: "Log.count", registry: registry))
        }
        // An optional payload can be nil: a mandatory `data` cannot take it, an optional one can.
        let optionals = Event<Player.Type, Int?>("maybe", key: "Player.maybe")
        #expect(
            throws: EventError.argumentTypeMismatch(
                event: "Player.maybe", handler: "Log.count", argument: "data",
                expectedType: "Int", suppliedType: "Optional<Int>")
        ) {
            try optionals.subscribe(Handler(id: "Log.count", registry: registry))
        }
        try optionals.subscribe(Handler(id: "Log.account", bound: ["account": "a"], registry: registry))
        try strings.subscribe(Handler(id: "Log.any", registry: registry))
    }

    @Test func anEventWithoutDataSuppliesNoData() throws {
        let registry = try makeRegistry(Recorder())
        let download = Download()
        #expect(
            throws: EventError.missingArgument(
                event: "finished", handler: "Log.count", argument: "data", expectedType: "Int")
        ) {
            try download.finished.subscribe(Handler(id: "Log.count", registry: registry))
        }
    }

    @Test func senderAndEventParametersAreChecked() throws {
        let registry = try makeRegistry(Recorder())
        let download = Download()
        let progress = download.progress
        #expect(
            throws: EventError.argumentTypeMismatch(
                event: "progress", handler: "Log.inspect", argument: "event",
                expectedType: "SentEvent<Player.Type, String>",
                suppliedType: "SentEvent<Download, Double>")
        ) {
            try progress.subscribe(Handler(id: "Log.inspect", registry: registry))
        }
        try makeEvent().subscribe(Handler(id: "Log.inspect", registry: registry))
    }

    @Test func anAsyncHandlerMustRunInBackground() throws {
        let registry = try makeRegistry(Recorder())
        let event = Event<Player.Type, String>("s", key: "Player.s")
        let handler = try Handler(id: "Log.slow", bound: ["label": "l"], registry: registry)
        #expect(throws: EventError.requiresBackground(event: "Player.s", handler: "Log.slow")) {
            try event.subscribe(handler)
        }
        try event.subscribe(handler, inBackground: true)
    }
}
