import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import Testing

@Suite("Bound values round-trip exactly")
struct ValueRoundTripTests {
    let recorder = Recorder()
    let registry: HandlerRegistry

    init() throws { registry = try makeRegistry(recorder) }

    /// Binds `values`, writes the handler as JSON, rebuilds it and returns what the handler received.
    private func roundTrip(_ values: AllValues) throws -> (AllValues, String) {
        let handler = try Handler(id: "Values.all", bound: ["values": values], registry: registry)
        let json = handler.jsonString()
        let rebuilt = try Handler(json: json, registry: registry)
        #expect(rebuilt.jsonString() == json, "the second encoding differs")
        try rebuilt.callSynchronously()
        return (try extract(rebuilt), json)
    }

    /// Reads the bound value back through a handler that receives it as its parameter type.
    private func extract(_ handler: Handler) throws -> AllValues {
        let box = Box()
        let local = HandlerRegistry()
        try local.register(
            HandlerTable(
                module: "Extract",
                handlers: [
                    HandlerDescriptor(id: "Values.all", parameters: [.required("values", AllValues.self)]) {
                        arguments in
                        box.set(try arguments.required("values"))
                    }
                ]))
        try Handler(json: handler.jsonData(), registry: local).callSynchronously()
        guard let values = box.value else { throw HandlerFailure(code: 2) }
        return values
    }

    private final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: AllValues?
        func set(_ value: AllValues) {
            lock.lock()
            stored = value
            lock.unlock()
        }
        var value: AllValues? {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }

    static func sample(double: Double = 0.1, float: Float = 0.1) -> AllValues {
        AllValues(
            bool: true, int: Int.min, int8: .min, int16: .max, int32: .min, int64: .min,
            uint: .max, uint8: .max, uint16: .max, uint32: .max, uint64: .max,
            double: double, float: float, string: "héllo \"wörld\"\n\t\u{0}🎉",
            data: Data([0, 1, 2, 255, 254]), date: Date(timeIntervalSinceReferenceDate: 123_456.789_012_345),
            uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID(),
            url: URL(string: "https://example.org/a%20b?q=1#frag") ?? URL(fileURLWithPath: "/"),
            array: [1, -2, 3], dictionary: ["a": 1.5, "b": -0.25], optional: 0, missing: nil,
            point: Point(x: 1, y: 2, label: nil))
    }

    @Test func everyTypeRoundTrips() throws {
        let values = Self.sample()
        let (back, json) = try roundTrip(values)
        #expect(back == values)
        #expect(json.contains(#""int64":-9223372036854775808"#))
        #expect(json.contains(#""uint64":18446744073709551615"#))
        #expect(json.contains(#""bool":true"#))
        #expect(json.contains(#""data":"AAEC//4=""#))
        #expect(json.contains(#""url":"https://example.org/a%20b?q=1#frag""#))
        #expect(recorder.all == ["values -9223372036854775808"])
    }

    @Test(arguments: [
        Double.nan, .infinity, -.infinity, -0.0, 0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        .leastNormalMagnitude, .greatestFiniteMagnitude, 0x1p53 + 2, 0.1, Double(bitPattern: 0x0000_1000_0000_0001),
        .pi,
    ])
    func doublesRoundTripBitForBit(value: Double) throws {
        let (back, _) = try roundTrip(Self.sample(double: value, float: Float(value)))
        #expect(back.double.bitPattern == value.bitPattern || (back.double.isNaN && value.isNaN))
        let float = Float(value)
        #expect(back.float.bitPattern == float.bitPattern || (back.float.isNaN && float.isNaN))
    }

    @Test func floatSubnormalsRoundTrip() throws {
        for float in [
            Float.leastNonzeroMagnitude, -Float.leastNonzeroMagnitude, Float(1e-40), .greatestFiniteMagnitude,
        ] {
            let (back, _) = try roundTrip(Self.sample(float: float))
            #expect(back.float.bitPattern == float.bitPattern)
        }
    }

    @Test func integersBeyond2To53StayExact() throws {
        for value: Int64 in [1 << 53 + 1, (1 << 62) + 1, .max, .min, .min + 1] {
            var values = Self.sample()
            values.int64 = value
            values.array = [Int(value)]
            let (back, json) = try roundTrip(values)
            #expect(back.int64 == value)
            #expect(back.array == [Int(value)])
            #expect(json.contains("\"int64\":\(value)"))
        }
    }

    @Test func nonFiniteNumbersAreReadableStrings() throws {
        let (_, json) = try roundTrip(Self.sample(double: .nan, float: -.infinity))
        #expect(json.contains(#""double":"NaN""#))
        #expect(json.contains(#""float":"-Infinity""#))
    }

    @Test func nestedHandlersAreValues() throws {
        let inner = try Handler(id: "Counter.add", bound: ["amount": 5], registry: registry)
        let outer = try Handler(id: "Chain.then", bound: ["next": inner], registry: registry)
        let json = outer.jsonString()
        #expect(
            json
                == #"{"bound":{"next":{"bound":{"amount":5},"id":"Counter.add","version":1}},"id":"Chain.then","version":1}"#
        )
        let rebuilt = try Handler(json: json, registry: registry)
        try rebuilt.callSynchronously()
        #expect(recorder.all == ["chain Counter.add", "add 7"])
    }

    @Test func nestedHandlerWithUnknownIDIsRejectedWithItsPlace() throws {
        let json = #"{"bound":{"next":{"id":"Gone.away","version":1}},"id":"Chain.then","version":1}"#
        let error = #expect(throws: HandlerError.self) { try Handler(json: json, registry: registry) }
        guard case .typeMismatch("Chain.then", "next", "Handler", _, let detail?)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(detail.contains("unknown handler id 'Gone.away'"))
    }

    @Test func handlersInsideForeignCodersUseTheRegistryInUserInfo() throws {
        struct Envelope: Codable {
            var handler: Handler
            var note: String
        }
        let handler = try Handler(id: "Counter.add", bound: ["amount": 3], registry: registry)
        let data = try JSONEncoder().encode(Envelope(handler: handler, note: "n"))
        let decoder = JSONDecoder()
        decoder.userInfo[.handlerRegistry] = registry
        let envelope = try decoder.decode(Envelope.self, from: data)
        #expect(envelope.handler.jsonString() == handler.jsonString())
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Envelope.self, from: data) }
    }

    @Test func boundDoublesReachDoubleParametersBitForBit() throws {
        let received = Recorder()
        let local = HandlerRegistry()
        try local.register(
            HandlerTable(
                module: "Doubles",
                handlers: [
                    HandlerDescriptor(id: "Doubles.take", parameters: [.required("value", Double.self)]) { arguments in
                        let value: Double = try arguments.required("value")
                        received.record(String(value.bitPattern))
                    }
                ]))
        var generator = SystemRandomNumberGenerator()
        var texts = [
            "0.125", "-0.0", "0.0", "123.456", "0.1", "0.000001", "999999999999999.9", "1e-7", "-2.5E3",
            "0.30000000000000004", "9007199254740.993", "1", "-17", "1234567890123456789",
        ]
        for _ in 0..<2_000 {
            let digits = String(UInt64.random(in: 0..<1_000_000_000_000_000, using: &generator))
            let point = Int.random(in: 0...digits.count, using: &generator)
            texts.append(
                (Bool.random(using: &generator) ? "-" : "") + (point == 0 ? "0" : String(digits.prefix(point)))
                    + "." + String(digits.dropFirst(point)) + "0")
        }
        for text in texts {
            let json = #"{"bound":{"value":"# + text + #"},"id":"Doubles.take","version":1}"#
            try Handler(json: json, registry: local).callSynchronously()
            let expected = try #require(Double(text))
            #expect(received.all.last == String(expected.bitPattern), "\(text)")
        }
    }
}
