#if SignalsCommandLine
import ArgumentParser
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection

/// `status`: runs, counts by state per component, oldest waiting delivery, dead letters, kept signals.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Runs, deliveries by state per component, dead letters, kept signals.")

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let inspector = try store.openForReading()
        let status = try await inspector.status()
        let blocked = try await inspector.blockedOrderingKeys()
        if store.json { return try Output.json(StatusJSON(status, blockedOrderingKeys: blocked.count)) }
        let now = Date()
        print("store  \(Output.cut(status.location, Output.width - 7))")
        print("")
        print("runs (\(status.runs.count))")
        if status.runs.isEmpty { print("  none recorded") }
        for run in status.runs {
            let place = (run.host.map { "\($0) " } ?? "") + "pid \(run.processID)"
            print(
                "  " + Output.pad(run.component, 16) + " " + Output.pad(run.isAlive ? "alive" : "gone", 5) + " "
                    + Output.pad(place, 22) + " started " + Output.age(run.startedAt, now: now))
            print("    run \(run.runID)")
        }
        print("")
        print("deliveries  " + Output.pad("component", 20) + " pending retrying  claimed     dead")
        if status.components.isEmpty { print("  none") }
        for component in status.components {
            let cells = DeliveryFilter.State.allCases.map {
                Output.pad(String(status.count(of: component, in: $0)), 8, right: true)
            }
            print("            " + Output.pad(component, 20) + cells.joined(separator: " "))
        }
        for component in status.componentsWithoutLiveRun {
            print(
                Output.wrap(
                    "\(component): no run alive; its waiting deliveries run when a process of \(component) starts",
                    indent: 4, first: 2))
        }
        print("")
        print("oldest waiting  " + (status.oldestWaiting.map { "made \(Output.age($0, now: now))" } ?? "none"))
        print("dead letters    \(status.deadDeliveries)")
        print("blocked keys    \(blocked.count)\(blocked.isEmpty ? "" : " (see `blocked-keys`)")")
        print("consumers       \(status.consumers)")
        print("kept signals    \(status.keptSignals)")
        print("completions     \(status.completions) in the history")
    }
}

/// `consumers`: the registered consumers.
struct ConsumersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consumers", abstract: "The registered consumers, with their signal, run and handler.")

    @OptionGroup var store: StoreOptions
    @Option(help: "Only those of this component.") var component: String?
    @Option(help: "Only those of this signal id.") var signal: String?
    @Option(help: "Only those whose handler has this id.") var handler: String?
    @Flag(help: "With --json: include each consumer's handler document.") var documents = false

    func run() async throws {
        let consumers = try await store.openForReading().consumers(
            component: component, signalID: signal, handlerID: handler)
        if store.json { return try Output.json(consumers.map { ConsumerJSON($0, withHandler: documents) }) }
        print("consumers (\(consumers.count))")
        for consumer in consumers {
            print("  \(consumer.id)  \(consumer.component)")
            print(
                Output.wrap(
                    "signal '\(consumer.signalID)' · handler \(consumer.handlerID) · \(consumer.mode.rawValue) · "
                        + "\(consumer.lifetime.rawValue) · run \(consumer.runID)", indent: 4))
        }
    }
}

/// `deliveries`: deliveries by state, with filters.
struct DeliveriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries",
        abstract: "Deliveries by state (pending, retrying, claimed, dead), oldest first.",
        discussion: """
            pending: waiting to be claimed. retrying: pending again after a failed attempt, due later. \
            claimed: a run is delivering it (by which run and attempt). dead: parked with its reason \
            until it is requeued.
            """)

    @OptionGroup var store: StoreOptions
    @Option(name: .customLong("state"), help: "Only those in this state (repeatable).")
    var states: [DeliveryFilter.State] = []
    @OptionGroup var filter: FilterOptions
    @Option(help: "At most this many.") var limit: Int = 100
    @Flag(help: "Include each delivery's handler document and payload.") var bodies = false

    func run() async throws {
        var query = filter.deliveries(
            states: states.isEmpty ? nil : Set(states), limit: max(0, limit) + 1, now: Date())
        query.includesBodies = bodies
        var deliveries = try await store.openForReading().deliveries(matching: query)
        let more = deliveries.count > max(0, limit)
        deliveries = Array(deliveries.prefix(max(0, limit)))
        if store.json { return try Output.json(deliveries.map(DeliveryJSON.init)) }
        print("deliveries (\(deliveries.count)\(more ? ", more not shown: raise --limit" : ""))")
        for delivery in deliveries { print(DeliveryText.summary(delivery)) }
    }
}

/// `show`: one delivery in full.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "One delivery: its state, attempts, error, handler document and payload.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The delivery's key (CONSUMER/REVISION).") var key: String

    func run() async throws {
        guard let delivery = try await store.openForReading().delivery(DeliveryKey(key)) else {
            throw ToolError(
                "no delivery '\(key)' in \(store.store): it was completed, discarded, or never made "
                    + "(see `completions --key`)")
        }
        if store.json { return try Output.json(DeliveryJSON(delivery)) }
        print(DeliveryText.summary(delivery))
        print("  owner run  \(delivery.ownerRun)")
        print("  due        \(Output.time(delivery.dueAt)) (\(Output.age(delivery.dueAt)))")
        print("  made       \(Output.time(delivery.madeAt))")
        print("  lifetime   \(delivery.lifetime.rawValue)")
        if delivery.previousAttemptCrashed { print("  its previous attempt was interrupted by its process's death") }
        print("handler document")
        print(Output.wrap(Output.document(delivery.handler)?.text ?? "(missing)"))
        print("payload")
        print(Output.wrap(Output.document(delivery.payload)?.text ?? "(missing)"))
    }
}

/// `blocked-keys`: the ordering keys whose first delivery is dead or waiting for a retry.
struct BlockedKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blocked-keys",
        abstract: "Ordering keys held back by their first delivery: dead, or waiting for its retry.",
        discussion: """
            The deliveries of an ordering key run one at a time, in the order posted: while the first is \
            dead, the others wait. Requeue it (it runs again, first) or discard it (the next one runs).
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "Only those of this component.") var component: String?

    func run() async throws {
        let blocked = try await store.openForReading().blockedOrderingKeys(component: component)
        if store.json { return try Output.json(blocked.map(BlockedKeyJSON.init)) }
        print("blocked ordering keys (\(blocked.count))")
        for key in blocked {
            print(
                Output.wrap(
                    "'\(Output.cut(key.orderingKey, 60))' \(key.waiting) waiting · \(key.head.component)", indent: 4,
                    first: 2))
            print(DeliveryText.summary(key.head))
            if key.needsOperator {
                print(
                    Output.wrap(
                        "release it: `requeue \(key.head.key)` runs it again first; `discard \(key.head.key)` "
                            + "lets the next one run", indent: 6))
            }
        }
    }
}

/// `completions`: the history of completions.
struct CompletionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completions", abstract: "Completions in the history: of a key, consumer or signal.")

    @OptionGroup var store: StoreOptions
    @Option(help: "Only those of this delivery key.") var key: String?
    @Option(help: "Only those of this consumer id.") var consumer: String?
    @Option(help: "Only those of this signal id.") var signal: String?
    @Option(help: "At most this many.") var limit: Int = 100

    func run() async throws {
        let completions = try await store.openForReading().completions(
            matching: CompletionFilter(
                key: key.map(DeliveryKey.init), consumerID: consumer.map(ConsumerID.init), signalID: signal,
                limit: max(0, limit)))
        if store.json { return try Output.json(completions.map(CompletionJSON.init)) }
        print("completions (\(completions.count))")
        for completion in completions {
            print("  \(completion.key)  \(Output.age(completion.completedAt))")
            print(
                Output.wrap(
                    "signal '\(completion.signalID)' · attempt \(completion.attempt) · run \(completion.runID)",
                    indent: 4))
        }
    }
}

/// How a delivery is written in lists.
enum DeliveryText {
    static func summary(_ delivery: DeliveryRecord) -> String {
        let state = delivery.filterState
        var lines = ["  \(delivery.key)  \(state.rawValue)"]
        var facts = [
            delivery.component, "signal '\(delivery.signalID)'", "handler \(delivery.handlerID)",
            "made \(Output.age(delivery.madeAt))",
        ]
        if let key = delivery.orderingKey { facts.append("ordering key '\(key)'") }
        if let key = delivery.debounceKey { facts.append("debounce key '\(key)'") }
        switch state {
        case .pending: facts.append("due \(Output.age(delivery.dueAt))")
        case .retrying:
            facts.append(
                "\(delivery.attempts) attempt\(delivery.attempts == 1 ? "" : "s"), retry \(Output.age(delivery.dueAt))")
        case .claimed:
            facts.append(
                "claimed by run \(delivery.claimedBy ?? "?"), attempt \(delivery.attempts)"
                    + (delivery.claimedAt.map { ", \(Output.age($0))" } ?? "")
                    + (delivery.started ? ", its handler started" : ", its handler not yet started"))
        case .dead: facts.append("\(delivery.attempts) attempt\(delivery.attempts == 1 ? "" : "s")")
        }
        lines.append(Output.wrap(facts.joined(separator: " · "), indent: 4))
        if let error = delivery.lastError {
            lines.append(Output.wrap((state == .dead ? "reason: " : "last error: ") + error, indent: 6, first: 4))
        }
        return lines.joined(separator: "\n")
    }
}

/// A failure of the tool, with what to do.
struct ToolError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
#endif
