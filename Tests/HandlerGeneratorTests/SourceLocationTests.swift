import Foundation
import HandlerGenerator
import HandlerScanner
import Testing

/// Every generated line that carries text from the user's declaration is mapped by `#sourceLocation`
/// to the user's line that holds that text.
@Suite struct SourceLocationTests {
    static let source = """
        import HandlerKit

        extension OMEMO {
            static let fallback = "none"

            @handler(instance: "account.omemo")
            func bundleFetched(account: Account, jid: String,

                               errorReason: String = fallback,
                               rid: [String : Int]) async throws {}
        }

        enum Carbons {
            @handler
            static func enabled(
                account: Account,
                limit: Int = defaultLimit
            ) {}

            @handler
            static func apply(transform: @escaping @Sendable (Int) -> Int = { x in
                x + 1
            }, to value: Int,
               scale: Int = factor) {}
        }

        """

    /// For each generated line, the (file, line) the compiler reports it at.
    static func mappedLines(_ text: String) -> [(file: String?, line: Int, text: String)] {
        var mapped: [(file: String?, line: Int, text: String)] = []
        var file: String?
        var next = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "#sourceLocation()" {
                file = nil
                mapped.append((nil, index + 1, String(line)))
                next = index + 2
                continue
            }
            if let match = trimmed.wholeMatch(of: #/#sourceLocation\(file: "(.*)", line: (\d+)\)/#) {
                file = String(match.1)
                next = Int(match.2) ?? 0
                mapped.append((nil, index + 1, String(line)))
                continue
            }
            if file != nil {
                mapped.append((file, next, String(line)))
                next += 1
            } else {
                mapped.append((nil, index + 1, String(line)))
            }
        }
        return mapped
    }

    func generated() throws -> [(file: String?, line: Int, text: String)] {
        let scan = SourceScanner.scan(source: Self.source, file: "Sources/Chat/Chat.swift")
        #expect(scan.diagnostics.isEmpty, "\(scan.diagnostics.map(\.compilerFormatted))")
        return Self.mappedLines(try HandlerGenerator(moduleName: "Chat").generate(scan))
    }

    /// The user's lines that generated lines containing `fragment` map to.
    func userLines(of fragment: String, in lines: [(file: String?, line: Int, text: String)]) -> [Int] {
        lines.filter { $0.text.contains(fragment) && $0.file == "Sources/Chat/Chat.swift" }.map(\.line)
    }

    /// Each default value occurs twice: in the descriptor's shim and in the typed call.
    @Test func defaultValuesMapToTheirParameterLine() throws {
        let lines = try generated()
        #expect(userLines(of: "default: fallback", in: lines) == [9, 9])
        #expect(userLines(of: "default: defaultLimit", in: lines) == [17, 17])
    }

    @Test func typesMapToTheirParameterLine() throws {
        let lines = try generated()
        // The parameters array, the locals of the shim and of the typed call, the signatures of the
        // reference and of the typed call.
        #expect(userLines(of: ".required(\"rid\", [String: Int].self)", in: lines) == [10])
        #expect(userLines(of: "let rid: [String: Int] =", in: lines) == [10, 10])
        #expect(userLines(of: "rid: [String: Int]? = nil", in: lines) == [10, 10])
        #expect(userLines(of: ".required(\"jid\", String.self)", in: lines) == [7])
        #expect(userLines(of: "limit: Int? = nil", in: lines) == [17, 17])
        // The signatures open on the line before their parameters' rows.
        #expect(userLines(of: "func callEnabledHandler(_ handler: Handler,", in: lines) == [15])
        #expect(userLines(of: "account: Account? = nil,", in: lines).sorted() == [7, 7, 16, 16])
        #expect(userLines(of: ".required(\"account\", Account.self)", in: lines).sorted() == [7, 16])
    }

    /// Parameters the user wrote on one line: each statement that repeats one is on a line of its own,
    /// mapped to that line.
    @Test func statementsOfParametersOnOneLineEachMapToThatLine() throws {
        let lines = try generated()
        #expect(
            userLines(of: "parameters.append(.required(\"account\", Account.self))", in: lines).sorted() == [7, 16])
        #expect(userLines(of: "parameters.append(.required(\"jid\", String.self))", in: lines) == [7])
        #expect(userLines(of: "let account: Account = try", in: lines).sorted() == [7, 7, 16, 16])
        #expect(userLines(of: "let jid: String = try", in: lines) == [7, 7])
        #expect(userLines(of: "let errorReason: String = try", in: lines) == [9, 9])
    }

    @Test func rowsAfterAMultiLineDefaultStayOnTheirLines() throws {
        let lines = try generated()
        #expect(userLines(of: "default: ({ x in", in: lines) == [21, 21])
        #expect(userLines(of: "let value: Int = try arguments.required(\"value\")", in: lines) == [23])
        #expect(userLines(of: "let value: Int = try value ?? arguments.required(\"value\")", in: lines) == [23])
        #expect(userLines(of: "default: factor", in: lines) == [24, 24])
    }

    @Test func instanceExpressionMapsToTheAttributeLine() throws {
        let lines = try generated()
        #expect(userLines(of: "account.omemo.bundleFetched(", in: lines) == [6, 6])
    }

    @Test func generatedCodeOutsideTheDeclarationIsNotMapped() throws {
        let lines = try generated()
        for fragment in [
            "HandlerBindings()", "return HandlerDescriptor(", "handlers.append(", "return try Handler(",
            ".callBound(as:",
        ] {
            #expect(userLines(of: fragment, in: lines).isEmpty, "\(fragment)")
        }
    }
}
