#if SignalsCommandLine
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection
import SignalStoreOpening

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Text for an 80-column terminal, and JSON for scripts.
enum Output {
    /// The width text is wrapped to.
    static let width = 80

    /// Writes `value` as JSON (sorted keys, dates as ISO 8601) to standard output.
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// `text` wrapped at word boundaries to `width` columns, every line but the first indented by
    /// `indent` spaces (the first by `first`). A word longer than a line is cut.
    static func wrap(_ text: String, indent: Int = 2, first: Int? = nil) -> String {
        var lines: [String] = []
        var line = String(repeating: " ", count: first ?? indent)
        var lineIsEmpty = true
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            var word = Substring(word)
            while !word.isEmpty {
                let room = width - line.count - (lineIsEmpty ? 0 : 1)
                if word.count <= room {
                    line += (lineIsEmpty ? "" : " ") + word
                    lineIsEmpty = false
                    word = ""
                } else if lineIsEmpty {
                    line += word.prefix(room)
                    word = word.dropFirst(room)
                    lines.append(line)
                    line = String(repeating: " ", count: indent)
                } else {
                    lines.append(line)
                    line = String(repeating: " ", count: indent)
                    lineIsEmpty = true
                }
            }
        }
        if !lineIsEmpty || lines.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    /// `text` cut to `length` characters, with an ellipsis when cut.
    static func cut(_ text: String, _ length: Int) -> String {
        text.count <= length ? text : text.prefix(max(0, length - 1)) + "…"
    }

    /// `text` padded with spaces (or cut) to `length` characters.
    static func pad(_ text: String, _ length: Int, right: Bool = false) -> String {
        let cut = cut(text, length)
        let spaces = String(repeating: " ", count: length - cut.count)
        return right ? spaces + cut : cut + spaces
    }

    /// How long ago `date` was: 42s, 5m, 3h, 2d (or "in 5m" for a date to come).
    static func age(_ date: Date, now: Date = Date()) -> String {
        Age.text(since: date, now: now)
    }

    /// `date` in UTC, to the second (`2026-11-26T18:00:09Z`).
    static func time(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// Writes a line of progress to standard error when it is a terminal (overwriting the last one).
    static func progress(_ text: String) {
        guard isatty(STDERR_FILENO) != 0 else { return }
        FileHandle.standardError.write(Data("\r\(cut(text, width - 1))\u{1B}[K".utf8))
    }

    /// Ends the progress line, when there is one.
    static func endProgress() {
        guard isatty(STDERR_FILENO) != 0 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// A JSON document's bytes as a JSON value (a string when they are not JSON).
    static func document(_ bytes: [UInt8]?) -> JSONValue? {
        guard let bytes else { return nil }
        return (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)))
            ?? .string(String(decoding: bytes, as: UTF8.self))
    }
}

/// Any JSON value, to embed a stored document (a handler's, a payload) in the output as itself.
/// Integers keep every digit up to 64 bits; other numbers are read as `Double`.
indirect enum JSONValue: Codable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .unsigned(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .unsigned(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value as compact JSON text.
    var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

// MARK: What the commands write as JSON

struct RunJSON: Encodable {
    var runID: String
    var component: String
    var host: String?
    var processID: Int
    var startedAt: Date
    var heartbeatAt: Date?
    var alive: Bool

    init(_ run: RunRecord) {
        runID = run.runID
        component = run.component
        host = run.host
        processID = run.processID
        startedAt = run.startedAt
        heartbeatAt = run.heartbeatAt
        alive = run.isAlive
    }
}

struct CountJSON: Encodable {
    var component: String
    var state: String
    var count: Int
    var oldestMadeAt: Date

    init(_ count: DeliveryCount) {
        component = count.component
        state = count.state.rawValue
        self.count = count.count
        oldestMadeAt = count.oldestMadeAt
    }
}

struct StatusJSON: Encodable {
    var store: String
    var runs: [RunJSON]
    var counts: [CountJSON]
    var oldestWaiting: Date?
    var deadDeliveries: Int
    var consumers: Int
    var keptSignals: Int
    var completions: Int
    var componentsWithoutLiveRun: [String]
    var blockedOrderingKeys: Int

    init(_ status: SignalStoreInspector.Status, blockedOrderingKeys: Int) {
        store = status.location
        runs = status.runs.map(RunJSON.init)
        counts = status.counts.map(CountJSON.init)
        oldestWaiting = status.oldestWaiting
        deadDeliveries = status.deadDeliveries
        consumers = status.consumers
        keptSignals = status.keptSignals
        completions = status.completions
        componentsWithoutLiveRun = status.componentsWithoutLiveRun
        self.blockedOrderingKeys = blockedOrderingKeys
    }
}

struct ConsumerJSON: Encodable {
    var consumerID: String
    var signalID: String
    var component: String
    var runID: String
    var lifetime: String
    var mode: String
    var handlerID: String
    var handler: JSONValue?

    init(_ consumer: ConsumerRecord, withHandler: Bool) {
        consumerID = consumer.id.rawValue
        signalID = consumer.signalID
        component = consumer.component
        runID = consumer.runID
        lifetime = consumer.lifetime.rawValue
        mode = consumer.mode.rawValue
        handlerID = consumer.handlerID
        handler = withHandler ? Output.document(consumer.handler) : nil
    }
}

struct BlockedKeyJSON: Encodable {
    var orderingKey: String
    var waiting: Int
    var needsOperator: Bool
    var head: DeliveryJSON

    init(_ key: BlockedOrderingKey) {
        orderingKey = key.orderingKey
        waiting = key.waiting
        needsOperator = key.needsOperator
        head = DeliveryJSON(key.head)
    }
}

struct DeliveryJSON: Encodable {
    var key: String
    var state: String
    var consumerID: String
    var component: String
    var lifetime: String
    var handlerID: String
    var signalID: String
    var revision: Int
    var ownerRun: String
    var claimedBy: String?
    var claimedAt: Date?
    var attempts: Int
    var started: Bool
    var previousAttemptCrashed: Bool
    var dueAt: Date
    var lastError: String?
    var madeAt: Date
    var orderingKey: String?
    var debounceKey: String?
    var handler: JSONValue?
    var payload: JSONValue?

    init(_ delivery: DeliveryRecord) {
        key = delivery.key.rawValue
        state = delivery.filterState.rawValue
        consumerID = delivery.consumerID.rawValue
        component = delivery.component
        lifetime = delivery.lifetime.rawValue
        handlerID = delivery.handlerID
        signalID = delivery.signalID
        revision = delivery.revision
        ownerRun = delivery.ownerRun
        claimedBy = delivery.claimedBy
        claimedAt = delivery.claimedAt
        attempts = delivery.attempts
        started = delivery.started
        previousAttemptCrashed = delivery.previousAttemptCrashed
        dueAt = delivery.dueAt
        lastError = delivery.lastError
        madeAt = delivery.madeAt
        orderingKey = delivery.orderingKey
        debounceKey = delivery.debounceKey
        handler = Output.document(delivery.handler)
        payload = Output.document(delivery.payload)
    }
}

struct CompletionJSON: Encodable {
    var key: String
    var consumerID: String
    var signalID: String
    var revision: Int
    var runID: String
    var attempt: Int
    var completedAt: Date

    init(_ completion: CompletionEntry) {
        key = completion.key.rawValue
        consumerID = completion.consumerID.rawValue
        signalID = completion.signalID
        revision = completion.revision
        runID = completion.runID
        attempt = completion.attempt
        completedAt = completion.completedAt
    }
}

/// What an action changed.
struct ChangeJSON: Encodable {
    var action: String
    var changed: Int
    var deliveries: [DeliveryJSON] = []
    var consumers: [ConsumerJSON] = []
    var refused: [DeliveryJSON] = []
}
#endif
