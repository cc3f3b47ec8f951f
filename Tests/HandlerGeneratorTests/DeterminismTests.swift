import HandlerGenerator
import HandlerScanner
import Testing

@Suite struct DeterminismTests {
    @Test func shuffledInputGivesByteIdenticalOutput() throws {
        let generator = HandlerGenerator(moduleName: "Chat")
        let reference = try generator.generate(ScanResult(handlers: ModelFixtures.chat))
        var generator64 = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let shuffled = ModelFixtures.chat.shuffled(using: &generator64)
            #expect(try generator.generate(ScanResult(handlers: shuffled)) == reference)
        }
    }

    @Test func noTimestampOrVersionInHeader() throws {
        let text = try HandlerGenerator(moduleName: "Chat").generate(ScanResult(handlers: ModelFixtures.chat))
        let header = text.split(separator: "\n").prefix(6).joined(separator: "\n")
        #expect(header.contains("Do not edit"))
        #expect(!header.contains("20"), "no dates or version numbers in the header")
    }
}
