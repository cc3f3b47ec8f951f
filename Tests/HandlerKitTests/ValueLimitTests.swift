import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import Testing

/// `depth` arrays nested inside each other around `0`, made up while encoding: no deep value exists
/// in memory, so any depth can be asked for.
struct NestedArrays: Encodable {
    let depth: Int

    func encode(to encoder: any Encoder) throws {
        if depth == 0 {
            var container = encoder.singleValueContainer()
            try container.encode(0)
        } else {
            var container = encoder.unkeyedContainer()
            try container.encode(NestedArrays(depth: depth - 1))
        }
    }
}

/// A value that wraps itself `depth` times in single-value containers around `0`: deep recursion of
/// `encode(to:)` that adds no level to the JSON.
struct SingleValueWrapping: Encodable {
    let depth: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if depth == 0 {
            try container.encode(0)
        } else {
            try container.encode(SingleValueWrapping(depth: depth - 1))
        }
    }
}

/// A linked list, the caller's own recursive type: `{"next":{"next":…,"value":1},"value":0}`.
final class Link: Encodable {
    let value: Int
    var next: Link?

    init(value: Int, next: Link?) {
        self.value = value
        self.next = next
    }

    /// A list of `count` links, built iteratively.
    static func list(count: Int) -> Link {
        var head = Link(value: count - 1, next: nil)
        for value in stride(from: count - 2, through: 0, by: -1) { head = Link(value: value, next: head) }
        return head
    }

    /// Unlinks the list from its head, so that releasing it never recurses through the links.
    static func release(_ head: inout Link?) {
        while let link = head {
            head = link.next
            link.next = nil
        }
    }
}

/// `depth` arrays nested inside each other around `0`, built iteratively.
func nestedArrayValue(depth: Int) -> HandlerValue {
    var value = HandlerValue.number("0")
    for _ in 0..<depth { value = .array([value]) }
    return value
}

/// Releases a value built by `nestedArrayValue` from the outside in, so that no release recurses.
func releaseNestedArrays(_ value: inout HandlerValue) {
    while case .array(let elements) = value, let inner = elements.first { value = inner }
}

/// How many arrays are nested inside each other at the start of `value`, counted iteratively.
func nestedArrayDepth(_ value: HandlerValue) -> Int {
    var depth = 0
    var current = value
    while case .array(let elements) = current, let inner = elements.first {
        depth += 1
        current = inner
    }
    return depth
}

/// The path of the array at `depth` (1-based) in a value of nested arrays placed at `path`.
func nestedArrayPath(_ path: String, depth: Int) -> String {
    path + String(repeating: "[0]", count: depth - 1)
}

@Suite("Limits: a value no document could hold is refused where it is bound or encoded")
struct ValueLimitTests {
    let recorder = Recorder()
    let registry = HandlerRegistry()
    let depthLimit = DecodingLimits.default.maximumDepth
    let sizeLimit = DecodingLimits.default.maximumDocumentSize

    init() throws {
        let recorder = recorder
        try registry.register(
            HandlerTable(
                module: "Limits",
                handlers: [
                    HandlerDescriptor(
                        id: "Limits.take",
                        parameters: [
                            .optional("value", HandlerValue.self), .optional("text", String.self),
                            .optional("blob", Data.self),
                        ],
                        invoke: { arguments in
                            let value: HandlerValue? = try arguments.optional("value")
                            let text: String? = try arguments.optional("text")
                            recorder.record(
                                "take depth \(value.map(nestedArrayDepth) ?? -1) text \(text?.utf8.count ?? -1)")
                        }
                    )
                ]))
    }

    // MARK: Depth

    /// A bound value sits inside the document's object and its `bound` object: two levels.
    @Test func aBoundValueAtTheDepthLimitIsAcceptedAndReadBack() throws {
        let handler = try Handler(
            id: "Limits.take", bound: ["value": NestedArrays(depth: depthLimit - 2)], registry: registry)
        let rebuilt = try Handler(json: handler.jsonData(), registry: registry)
        try rebuilt.callSynchronously()
        #expect(recorder.all == ["take depth \(depthLimit - 2) text -1"])
    }

    @Test func aBoundValueOneLevelDeeperIsRefusedWithItsPath() throws {
        let tooDeep = HandlerError.valueTooDeep(
            handler: "Limits.take", path: nestedArrayPath("bound.value", depth: depthLimit - 1), limit: depthLimit)
        #expect(throws: tooDeep) {
            try Handler(id: "Limits.take", bound: ["value": NestedArrays(depth: depthLimit - 1)], registry: registry)
        }
        let handler = try Handler(id: "Limits.take", registry: registry)
        #expect(throws: tooDeep) { try handler.bind(["value": NestedArrays(depth: depthLimit - 1)]) }
        #expect(handler.boundValues.isEmpty)
        let message = tooDeep.description
        #expect(message.contains("handler 'Limits.take'") && message.contains("\(depthLimit) levels"), "\(message)")
        #expect(message.contains("flatter"), "\(message)")
    }

    @Test func aValueAHundredThousandLevelsDeepIsRefusedWithoutExhaustingTheStack() throws {
        let deep = NestedArrays(depth: 100_000)
        #expect(
            throws: HandlerError.valueTooDeep(
                handler: "Limits.take", path: nestedArrayPath("bound.value", depth: depthLimit - 1), limit: depthLimit)
        ) {
            try Handler(id: "Limits.take", bound: ["value": deep], registry: registry)
        }
        #expect(
            throws: HandlerError.valueTooDeep(
                handler: nil, path: nestedArrayPath("", depth: depthLimit + 1), limit: depthLimit)
        ) {
            try HandlerValue(encoding: deep)
        }
        #expect(try nestedArrayDepth(HandlerValue(encoding: NestedArrays(depth: depthLimit))) == depthLimit)
    }

    @Test func aRecursiveTypeOfTheCallersIsStoppedAtTheLimit() throws {
        var list: Link? = Link.list(count: 100_000)
        defer { Link.release(&list) }
        // The first link's object is level 3 of the document, the 63rd link's level 65.
        let path = "bound.value" + String(repeating: ".next", count: depthLimit - 2)
        #expect(throws: HandlerError.valueTooDeep(handler: "Limits.take", path: path, limit: depthLimit)) {
            try Handler(id: "Limits.take", bound: ["value": list], registry: registry)
        }
    }

    @Test func singleValueContainersNestedWithoutEndAreStopped() throws {
        // The outermost call and `depthLimit - 1` wrapping ones.
        #expect(try HandlerValue(encoding: SingleValueWrapping(depth: depthLimit - 1)) == .number("0"))
        #expect(throws: EncodingError.self) { try HandlerValue(encoding: SingleValueWrapping(depth: depthLimit)) }
        let error = #expect(throws: EncodingError.self) {
            try HandlerValue(encoding: SingleValueWrapping(depth: 100_000))
        }
        let message = "\(String(describing: error))"
        #expect(message.contains("more than \(depthLimit) deep without adding a level"), "\(message)")
        #expect(message.contains("at '$'"), "\(message)")
        let bindingError = #expect(throws: HandlerError.self) {
            try Handler(id: "Limits.take", bound: ["value": SingleValueWrapping(depth: 100_000)], registry: registry)
        }
        guard case .encodingFailed("Limits.take", "value", let reason)? = bindingError else {
            Issue.record("\(String(describing: bindingError))")
            return
        }
        #expect(reason.contains("'bound.value'"), "\(reason)")
    }

    @Test func aHandlerValueBuiltAHundredThousandLevelsDeepIsRefusedAndWritten() throws {
        var deep = nestedArrayValue(depth: 100_000)
        defer { releaseNestedArrays(&deep) }
        #expect(
            throws: HandlerError.valueTooDeep(
                handler: "Limits.take", path: nestedArrayPath("bound.value", depth: depthLimit - 1), limit: depthLimit)
        ) {
            try Handler(id: "Limits.take", bound: ["value": deep], registry: registry)
        }
        #expect(throws: HandlerError.self) { try HandlerValue(encoding: deep) }
        #expect(
            throws: HandlerError.valueTooDeep(
                handler: nil, path: nestedArrayPath("bound.value", depth: depthLimit - 1), limit: depthLimit)
        ) {
            let document = HandlerValue.object([
                "bound": .object(["value": deep]), "id": .string("Limits.take"), "version": .number("1"),
            ])
            _ = try Handler(documentValue: document, registry: registry)
        }
        // Written without recursion, read back only within the limits.
        let json = deep.jsonData()
        #expect(json.count == 2 * 100_000 + 1)
        #expect(throws: HandlerError.self) { try HandlerValue(json: json) }
    }

    @Test func aNestedHandlerCountsTheLevelsAroundIt() throws {
        let inner = try Handler(
            id: "Limits.take", bound: ["value": NestedArrays(depth: depthLimit - 2)], registry: registry)
        let error = #expect(throws: HandlerError.self) {
            try Handler(id: "Limits.take", bound: ["value": inner], registry: registry)
        }
        guard case .valueTooDeep("Limits.take", let path, depthLimit)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(path.hasPrefix("bound.value.bound.value[0]"), "\(path)")
    }

    // MARK: Size

    @Test func aDocumentOfExactlyTheSizeLimitIsAcceptedAndReadBack() throws {
        let empty = try Handler(id: "Limits.take", bound: ["text": ""], registry: registry)
        let text = String(repeating: "a", count: sizeLimit - empty.jsonData().count)
        let handler = try Handler(id: "Limits.take", bound: ["text": text], registry: registry)
        let json = handler.jsonData()
        #expect(json.count == sizeLimit)
        try Handler(json: json, registry: registry).callSynchronously()
        #expect(recorder.all == ["take depth -1 text \(text.utf8.count)"])
    }

    @Test func aValueLargerThanAnyDocumentIsRefusedWithItsSize() throws {
        let text = String(repeating: "a", count: sizeLimit - 1)  // and its two quotes
        let tooLarge = HandlerError.valueTooLarge(
            handler: "Limits.take", path: "bound.text", size: sizeLimit + 1, limit: sizeLimit)
        #expect(throws: tooLarge) { try Handler(id: "Limits.take", bound: ["text": text], registry: registry) }
        let handler = try Handler(id: "Limits.take", registry: registry)
        #expect(throws: tooLarge) { try handler.bind(["text": text]) }
        #expect(handler.boundValues.isEmpty)
        #expect(tooLarge.description.contains("\(sizeLimit + 1) bytes"), "\(tooLarge)")
    }

    @Test func dataWhoseBase64IsOverTheLimitIsRefusedSayingWhy() throws {
        let blob = Data(count: sizeLimit / 4 * 3 + 1)
        let error = #expect(throws: HandlerError.self) {
            try Handler(id: "Limits.take", bound: ["blob": blob], registry: registry)
        }
        guard case .valueTooLarge("Limits.take", "bound.blob", let size, sizeLimit)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(size == (blob.count + 2) / 3 * 4 + 2)
        #expect(error?.description.contains("base64") == true, "\(String(describing: error))")
    }
}
