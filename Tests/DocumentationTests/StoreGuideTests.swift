import Foundation
import Testing

/// "How a delivery moves" is the guide for writing a store: it describes every requirement of the
/// store protocols (an entry that starts with the requirement's name in bold) and every step of a plan
/// (a row of its step table), so that a requirement or a step added to the code without its
/// description fails here.
@Suite struct StoreGuideTests {
    static let guide = "Sources/HandlerKitSignals/HandlerKitSignals.docc/HowADeliveryMoves.md"

    /// The names of the requirements of `protocol` declared in `file` (its `func`s and `var`s).
    static func requirements(of protocolName: String, in file: String) throws -> [String] {
        let lines = try ArticleSnippetTests.text(of: file).split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains("protocol \(protocolName):") }) else { return [] }
        var names: [String] = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("}") { break }
            let words = line.split(separator: " ")
            if let index = words.firstIndex(where: { $0 == "func" || $0 == "var" }), index + 1 < words.count {
                names.append(String(words[index + 1].prefix { $0.isLetter || $0.isNumber }))
            }
        }
        return names
    }

    /// The cases of `StoreStep`.
    static func steps() throws -> [String] {
        let source = try ArticleSnippetTests.text(of: "Sources/HandlerKitSignals/StoreStep.swift")
        return source.split(separator: "\n").compactMap { line in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("case ") else { return nil }
            return String(trimmed.dropFirst(5).prefix { $0.isLetter || $0.isNumber })
        }
    }

    @Test func everyRequirementOfTheStoreProtocolsIsDescribed() throws {
        let guide = try ArticleSnippetTests.text(of: Self.guide)
        let protocols = [
            ("SignalStore", "SignalStore.swift"), ("SignalRunLiveness", "SignalStore.swift"),
            ("InspectableSignalStore", "../HandlerKitSignalsInspection/InspectableSignalStore.swift"),
        ]
        var count = 0
        for (name, file) in protocols {
            let requirements = try Self.requirements(of: name, in: "Sources/HandlerKitSignals/\(file)")
            #expect(!requirements.isEmpty, "no requirement of \(name) was found in \(file)")
            for requirement in requirements {
                let described = guide.contains("**\(requirement)")
                #expect(described, "\(name).\(requirement) has no entry in \(Self.guide)")
            }
            count += requirements.count
        }
        for requirement in try Self.requirements(
            of: "SignalWakeListener", in: "Sources/HandlerKitSignals/SignalStore.swift")
        {
            let named = guide.contains("`\(requirement)(")
            #expect(named, "SignalWakeListener.\(requirement) is not named in the guide")
        }
        // Every protocol had requirements to check (each is expected non-empty above).
        #expect(count >= protocols.count)
    }

    /// The driver protocol stays a handful of primitives: what the core can build from them (reads,
    /// conveniences, takeovers) is an extension, not a requirement every store must write.
    @Test func theDriverProtocolHasAtMostEightRequirements() throws {
        let requirements = try Self.requirements(of: "SignalStore", in: "Sources/HandlerKitSignals/SignalStore.swift")
        // At least the primitives no core can build (where the store is, a program, a read: so that a
        // parse finding none fails too), at most eight.
        #expect((3...8).contains(requirements.count), "SignalStore's requirements: \(requirements)")
    }

    @Test func everyStepIsARowOfTheStepTable() throws {
        let guide = try ArticleSnippetTests.text(of: Self.guide)
        let steps = try Self.steps()
        #expect(steps.count >= 20)
        for step in steps {
            let described = guide.contains("| `\(step)(")
            #expect(described, "StoreStep.\(step) has no row in the step table of \(Self.guide)")
        }
    }
}
