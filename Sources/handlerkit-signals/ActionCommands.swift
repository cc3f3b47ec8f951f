#if SignalsCommandLine
import ArgumentParser
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection
import SignalStoreOpening

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks before an action changes the store.
enum Confirmation {
    /// Returns when the action may go on: `--yes` was given, or the person at the terminal answered
    /// yes. Throws without a terminal (a script must say `--yes`) and when the answer is not yes.
    static func ask(_ question: String, yes: Bool) throws {
        if yes { return }
        guard isatty(STDIN_FILENO) != 0 else {
            throw ToolError(
                "nothing changed: this command changes the store and asks for confirmation first, but standard "
                    + "input is not a terminal; add --yes to confirm (\(question.dropLast()))")
        }
        print("\(question) [y/N] ", terminator: "")
        fflush(nil)
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw ToolError("nothing changed: not confirmed") }
    }

    /// Lists up to ten keys, then how many more.
    static func list(_ keys: [String]) {
        for key in keys.prefix(10) { print("  \(key)") }
        if keys.count > 10 { print("  and \(keys.count - 10) more") }
    }
}

/// `requeue`: dead deliveries made pending again.
struct RequeueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requeue",
        abstract: "Make dead deliveries pending again, due now, with a fresh count of attempts.",
        discussion: """
            Give a delivery's KEY, filters (every dead delivery that matches them), or --all. A delivery \
            whose run is gone is delivered by the next process of its component that starts.
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The key of one dead delivery.") var key: String?
    @OptionGroup var filter: FilterOptions
    @Flag(help: "Every dead delivery.") var all = false
    @Flag(name: .shortAndLong, help: "Do not ask for confirmation.") var yes = false

    func validate() throws {
        let filtered =
            filter.component != nil || filter.signal != nil || filter.handler != nil || filter.consumer != nil
            || filter.olderThan != nil || filter.orderingKey != nil
        guard key != nil || filtered || all else {
            throw ValidationError("say which dead deliveries to requeue: a KEY, filters (e.g. --component), or --all")
        }
        if all && (key != nil || filtered) {
            throw ValidationError("--all requeues every dead delivery: drop it, or the KEY and filters")
        }
    }

    func run() async throws {
        let inspector = try await store.openForChanging()
        var query = filter.deliveries(states: [.dead], now: Date())
        query.key = key.map(DeliveryKey.init)
        let dead = try await inspector.deliveries(matching: query)
        if dead.isEmpty {
            if key != nil, let found = try await inspector.delivery(DeliveryKey(key ?? "")) {
                throw ToolError("delivery \(found.key) is \(found.filterState.rawValue), not dead: nothing to requeue")
            }
            if store.json { return try Output.json(ChangeJSON(action: "requeue", changed: 0)) }
            print("no dead delivery matches: nothing changed")
            return
        }
        if !store.json {
            print("dead deliveries to requeue (\(dead.count)):")
            Confirmation.list(dead.map(\.key.rawValue))
        }
        try Confirmation.ask("Requeue \(dead.count) dead deliver\(dead.count == 1 ? "y" : "ies")?", yes: yes)
        var requeued: [DeliveryRecord] = []
        for batch in stride(from: 0, to: dead.count, by: 200) {
            var keys = DeliveryFilter(states: [.dead])
            for delivery in dead[batch..<min(batch + 200, dead.count)] {
                keys.key = delivery.key
                requeued += try await inspector.requeue(matching: keys)
            }
            Output.progress("requeued \(requeued.count) of \(dead.count)")
        }
        Output.endProgress()
        if store.json {
            return try Output.json(
                ChangeJSON(action: "requeue", changed: requeued.count, deliveries: requeued.map(DeliveryJSON.init)))
        }
        print("requeued \(requeued.count) deliver\(requeued.count == 1 ? "y" : "ies"): pending, due now")
        Confirmation.list(requeued.map(\.key.rawValue))
        if requeued.count < dead.count {
            print("\(dead.count - requeued.count) were no longer dead (requeued or discarded meanwhile)")
        }
    }
}

/// `discard`: a delivery or a consumer removed.
struct DiscardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discard",
        abstract: "Remove a delivery (pending or dead), or a consumer with its pending and dead deliveries.",
        discussion: """
            A discarded delivery's handler never runs and no completion is recorded. A claimed delivery \
            is not discarded: its handler may be running. A discarded consumer receives no more posts; \
            its claimed deliveries finish.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "The key of the delivery to remove.") var delivery: String?
    @Option(help: "The id of the consumer to remove.") var consumer: String?
    @Flag(name: .shortAndLong, help: "Do not ask for confirmation.") var yes = false

    func validate() throws {
        guard (delivery == nil) != (consumer == nil) else {
            throw ValidationError("say what to discard: --delivery KEY or --consumer ID (one of them)")
        }
    }

    func run() async throws {
        let inspector = try await store.openForChanging()
        if let key = delivery {
            guard let found = try await inspector.delivery(DeliveryKey(key)) else {
                throw ToolError("no delivery '\(key)' in \(store.store): nothing changed")
            }
            if found.state == .claimed { throw claimedError(found) }
            if !store.json { print(DeliveryText.summary(found)) }
            try Confirmation.ask("Discard delivery \(key) (its handler will not run)?", yes: yes)
            switch try await inspector.discardDelivery(DeliveryKey(key)) {
            case .discarded(let removed):
                if store.json {
                    return try Output.json(
                        ChangeJSON(action: "discard", changed: 1, deliveries: [DeliveryJSON(removed)]))
                }
                print("discarded delivery \(removed.key) (\(removed.filterState.rawValue))")
            case .claimed(let claimed): throw claimedError(claimed)
            case .notFound: throw ToolError("delivery '\(key)' is gone meanwhile (completed or discarded)")
            }
        } else if let id = consumer {
            guard let found = try await inspector.consumers().first(where: { $0.id.rawValue == id }) else {
                throw ToolError("no consumer '\(id)' in \(store.store): nothing changed")
            }
            let deliveries = try await inspector.deliveries(matching: DeliveryFilter(consumerID: found.id))
            if !store.json {
                print(
                    "consumer \(found.id) of \(found.component): signal '\(found.signalID)', handler \(found.handlerID)"
                )
                print("  its deliveries: \(deliveries.count) (claimed ones are left to finish)")
            }
            try Confirmation.ask("Discard consumer \(id) and its pending and dead deliveries?", yes: yes)
            let removed = try await inspector.discardConsumer(found.id)
            if store.json {
                return try Output.json(
                    ChangeJSON(
                        action: "discard-consumer", changed: removed.consumer == nil ? 0 : 1,
                        consumers: removed.consumer.map { [ConsumerJSON($0, withHandler: false)] } ?? []))
            }
            guard removed.consumer != nil else { throw ToolError("consumer '\(id)' is gone meanwhile") }
            print(
                "discarded consumer \(id), \(removed.pendingDeliveries) pending and \(removed.deadDeliveries) dead "
                    + "deliveries; \(removed.claimedDeliveries) claimed left to finish")
        }
    }

    private func claimedError(_ delivery: DeliveryRecord) -> ToolError {
        ToolError(
            "delivery \(delivery.key) is claimed by run \(delivery.claimedBy ?? "?") (attempt \(delivery.attempts)): "
                + "its handler may be running, so it was not discarded; try again once it is settled, or once "
                + "its run is gone and taken over")
    }
}

/// `purge-completions`: the history of completions emptied.
struct PurgeCompletionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge-completions",
        abstract: "Remove completions from the history (all, those of a key, or older than an age).")

    @OptionGroup var store: StoreOptions
    @Option(help: "Only those of this delivery key.") var key: String?
    @Option(help: ArgumentHelp("Only those older than this: 90s, 15m, 2h or 3d.", valueName: "age"))
    var olderThan: Age?
    @Flag(name: .shortAndLong, help: "Do not ask for confirmation.") var yes = false

    func run() async throws {
        let inspector = try await store.openForChanging()
        let before = Date().addingTimeInterval(-(olderThan?.seconds ?? 0))
        let found = try await inspector.completions(
            matching: CompletionFilter(key: key.map(DeliveryKey.init), completedBefore: before))
        if found.isEmpty {
            if store.json { return try Output.json(ChangeJSON(action: "purge-completions", changed: 0)) }
            print("no completion matches: nothing changed")
            return
        }
        try Confirmation.ask(
            "Remove \(found.count) completion\(found.count == 1 ? "" : "s") from the history?", yes: yes)
        let removed = try await inspector.purgeCompletions(of: key.map(DeliveryKey.init), completedBefore: before)
        if store.json { return try Output.json(ChangeJSON(action: "purge-completions", changed: removed)) }
        print("removed \(removed) completion\(removed == 1 ? "" : "s") from the history")
    }
}
#endif
