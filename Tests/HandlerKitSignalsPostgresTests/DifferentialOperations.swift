@_spi(SignalStoreDriver) import HandlerKitSignals

/// SplitMix64: a small generator whose sequence is fixed by its seed, so that a seed printed by a
/// failing differential run replays the same operations.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }

    /// `true` with probability `percent` / 100.
    mutating func percent(_ percent: Int) -> Bool { below(100) < percent }
}

/// How a settlement settles a promise.
enum DifferentialSettlement: String, Hashable, Sendable {
    case fulfil, reject, cancel
}

/// One operation of a differential sequence, applied to every store alike. Slots are the "processes":
/// slots 0 and 1 run component `app`, slot 2 component `ext`; an operation on an empty slot does nothing.
/// Consumers and promises are named by the order the sequence makes them (`c3`, `p1`), so that an
/// operation names the same one in every store.
enum DifferentialOperation: Hashable, Sendable, CustomStringConvertible {
    /// Starts a center in the slot (it takes over the component's runs that are gone).
    case start(slot: Int)
    /// Stops the slot's center (`stop()`: its run ends cleanly).
    case stop(slot: Int)
    /// The slot's process dies: its run's proof of life is released with nothing else changed
    /// (`suspendRun` with a plan of no steps), and its center is never used again.
    case crash(slot: Int)
    /// The slot's run claims up to `limit` due deliveries and marks the first started, as a delivery
    /// pass does, without running or settling them (a process about to die in a handler).
    case claim(slot: Int, limit: Int)
    case suspend(slot: Int)
    case resume(slot: Int)
    case takeOver(slot: Int)
    /// Registers consumer `c<consumer>` of signal `s<signal>`, whose handler throws on its first
    /// `failures` calls for a delivery.
    case register(
        slot: Int, consumer: Int, signal: Int, lifetime: ConsumerLifetime, mode: DeliveryMode, failures: Int)
    /// Removes consumer `c<consumer>`: with the slot's center, or as an operator (`discardConsumer`).
    case remove(slot: Int, consumer: Int, asOperator: Bool)
    /// Posts to `s<signal>` with `item` (none: a payload the handlers cannot take), kept or not,
    /// delayed by an hour (never due within a sequence) or not, with ordering key `k<key>` or none,
    /// debounced by an hour (collapsing into the delivery that waits) or not.
    case post(slot: Int, signal: Int, item: Int?, keep: Bool, delayed: Bool, key: Int?, debounced: Bool)
    /// Posts `s<signals[i]>` with `items[i]`, in that order, in one bulk post.
    case bulkPost(slot: Int, signals: [Int], items: [Int])
    /// `deliverDue()` of the slot's center.
    case deliver(slot: Int)
    /// Requeues the dead delivery at `pick` (modulo their number, in the store's order) with the
    /// slot's center.
    case requeue(slot: Int, pick: Int)
    /// Requeues every dead delivery as an operator (`SignalStoreInspector.requeue(matching:)`).
    case requeueAll
    /// Discards the delivery at `pick` (modulo their number, any state) as an operator.
    case discard(pick: Int)
    /// Makes promise `p<promise>` of `Int`, with a fallback handler or not.
    case makePromise(slot: Int, promise: Int, fallback: Bool)
    /// Settles promise `p<promise>` under settlement key `k<key>`.
    case settle(slot: Int, promise: Int, how: DifferentialSettlement, key: Int)
    /// Awaits promise `p<promise>` when it is settled (a pending one is left alone).
    case await(slot: Int, promise: Int)

    /// The components of the slots.
    static let components = ["app", "app", "ext"]

    var description: String {
        func at(_ slot: Int) -> String { "\(Self.components[slot])#\(slot)" }
        switch self {
        case .start(let slot): return "start \(at(slot))"
        case .stop(let slot): return "stop \(at(slot))"
        case .crash(let slot): return "crash \(at(slot))"
        case .claim(let slot, let limit): return "claim up to \(limit) and hold them, \(at(slot))"
        case .suspend(let slot): return "suspend \(at(slot))"
        case .resume(let slot): return "resume \(at(slot))"
        case .takeOver(let slot): return "take over dead runs, \(at(slot))"
        case .register(let slot, let consumer, let signal, let lifetime, let mode, let failures):
            return
                "register c\(consumer) for s\(signal) (\(lifetime.rawValue), \(mode.rawValue), fails \(failures)×), \(at(slot))"
        case .remove(let slot, let consumer, let asOperator):
            return asOperator ? "discard consumer c\(consumer) as an operator" : "remove c\(consumer), \(at(slot))"
        case .post(let slot, let signal, let item, let keep, let delayed, let key, let debounced):
            return
                "post s\(signal) item \(item.map(String.init) ?? "none")\(keep ? " kept" : "")\(delayed ? " delayed" : "")\(key.map { " key k\($0)" } ?? "")\(debounced ? " debounced" : ""), \(at(slot))"
        case .bulkPost(let slot, let signals, let items):
            let posts = zip(signals, items).map { "s\($0) item \($1)" }.joined(separator: ", ")
            return "bulk post \(posts), \(at(slot))"
        case .deliver(let slot): return "deliver due, \(at(slot))"
        case .requeue(let slot, let pick): return "requeue dead delivery #\(pick), \(at(slot))"
        case .requeueAll: return "requeue every dead delivery as an operator"
        case .discard(let pick): return "discard delivery #\(pick) as an operator"
        case .makePromise(let slot, let promise, let fallback):
            return "make promise p\(promise)\(fallback ? " with a fallback" : ""), \(at(slot))"
        case .settle(let slot, let promise, let how, let key):
            return "\(how.rawValue) p\(promise) under key k\(key), \(at(slot))"
        case .await(let slot, let promise): return "await p\(promise), \(at(slot))"
        }
    }
}

/// What a sequence's centers are set to: the same in every store.
struct DifferentialSettings: Hashable, Sendable, CustomStringConvertible {
    /// The maximum of attempts of each slot's centers (a taker counts interrupted attempts by its own).
    var maximumAttempts: [Int]
    /// The retry delay (first and longest): zero, or a millisecond. With a delay, every step starts
    /// after it has passed, so that what is due does not depend on how fast a store is.
    var retryDelay: Duration
    /// Deliveries claimed per transaction (a pass claims again while its batch was full).
    var claimBatch: Int

    func retry(slot: Int) -> RetryPolicy {
        RetryPolicy(maximumAttempts: maximumAttempts[slot], firstDelay: retryDelay, maximumDelay: retryDelay)
    }

    var description: String {
        "attempts \(maximumAttempts.map(String.init).joined(separator: "/")), retry delay \(retryDelay), claim batch \(claimBatch)"
    }
}

/// Makes the random sequences: what a seed gives is fixed.
struct DifferentialGenerator {
    private var random: SplitMix64
    private var running = [false, false, false]
    private var consumers = 0
    private var promises = 0
    private var settlementKeys = 0
    private var queued: [DifferentialOperation] = []

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func settings() -> DifferentialSettings {
        let delay: Duration = random.percent(50) ? .zero : .milliseconds(1)
        // Without a delay a failed attempt is due at once, so a pass that claims again (its batch
        // was full) takes it in every store alike; with one, a batch never fills.
        let batch = delay == .zero ? [1, 2, 16][random.below(3)] : 1_000
        return DifferentialSettings(
            maximumAttempts: (0..<3).map { _ in 1 + random.below(4) }, retryDelay: delay, claimBatch: batch)
    }

    mutating func operations(_ count: Int) -> [DifferentialOperation] {
        (0..<count).map { _ in next() }
    }

    private mutating func next() -> DifferentialOperation {
        if !queued.isEmpty { return queued.removeFirst() }
        let slot = random.below(3)
        if !running[slot] && random.percent(80) {
            running[slot] = true
            return .start(slot: slot)
        }
        let roll = random.below(100)
        switch roll {
        case 0..<16:
            consumers += 1
            return .register(
                slot: slot, consumer: consumers - 1, signal: random.below(4),
                lifetime: random.percent(70) ? .durable : .run,
                mode: random.percent(50) ? .once : .everyRevision,
                failures: [0, 0, 0, 1, 99][random.below(5)])
        case 16..<32:
            return .post(
                slot: slot, signal: random.below(4), item: random.percent(92) ? random.below(100) : nil,
                keep: random.percent(30), delayed: random.percent(15), key: random.percent(40) ? random.below(2) : nil,
                debounced: random.percent(15))
        case 32..<35:
            let count = 2 + random.below(3)
            return .bulkPost(
                slot: slot, signals: (0..<count).map { _ in random.below(4) },
                items: (0..<count).map { _ in random.below(100) })
        case 35..<50: return .deliver(slot: slot)
        case 50..<53:
            running[slot] = false
            return .crash(slot: slot)
        case 53..<57:
            // Most often the process then dies with its claims.
            if random.percent(60) {
                running[slot] = false
                queued.append(.crash(slot: slot))
            }
            return .claim(slot: slot, limit: 1 + random.below(3))
        case 57..<60:
            running[slot] = false
            return .stop(slot: slot)
        case 60..<64: return .suspend(slot: slot)
        case 64..<68: return .resume(slot: slot)
        case 68..<71: return .takeOver(slot: slot)
        case 71..<75:
            return .remove(slot: slot, consumer: random.below(max(1, consumers)), asOperator: random.percent(30))
        case 75..<79: return .requeue(slot: slot, pick: random.below(8))
        case 79..<81: return .requeueAll
        case 81..<84: return .discard(pick: random.below(8))
        case 84..<89:
            promises += 1
            return .makePromise(slot: slot, promise: promises - 1, fallback: random.percent(60))
        case 89..<95:
            // Mostly a new key (the first settlement wins), sometimes the last key again (idempotent).
            if settlementKeys == 0 || random.percent(70) { settlementKeys += 1 }
            return .settle(
                slot: slot, promise: random.below(max(1, promises)),
                how: [.fulfil, .fulfil, .reject, .cancel][random.below(4)], key: settlementKeys - 1)
        default:
            return .await(slot: slot, promise: random.below(max(1, promises)))
        }
    }
}
