import HandlerScanner
import Testing

/// The compiler plugin's entry point: one declaration, positions shifted into the user's file.
@Suite("scanDeclaration")
struct ScanDeclarationTests {
    @Test func staticMemberIsValid() {
        let result = SourceScanner.scanDeclaration(
            "@handler\n    static func enabled(account: Account) async {}", file: "/p/A.swift", line: 10, column: 5,
            context: .type(path: "Carbons", isProtocol: false))
        #expect(result.diagnostics == [])
        #expect(result.handlers.first?.id == "Carbons.enabled")
        #expect(result.handlers.first?.line == 10)
        #expect(result.handlers.first?.column == 5)
        #expect(result.handlers.first?.parameters.first?.line == 11)
    }

    @Test func positionsAreShiftedOnFirstAndLaterLines() {
        let sameLine = SourceScanner.scanDeclaration(
            "@MainActor @handler private func f() {}", file: "A.swift", line: 7, column: 9, context: .fileScope)
        #expect(sameLine.diagnostics.map(\.line) == [7])
        #expect(sameLine.diagnostics.map(\.column) == [9 + 20])
        let laterLine = SourceScanner.scanDeclaration(
            "@handler\n  func f(x: inout Int) {}", file: "A.swift", line: 7, column: 9, context: .fileScope)
        #expect(laterLine.diagnostics.map(\.line) == [8])
        #expect(laterLine.diagnostics.map(\.column) == [13])
        #expect(laterLine.diagnostics.first?.file == "A.swift")
    }

    @Test func contextsGiveTheirDiagnostics() {
        let local = SourceScanner.scanDeclaration(
            "@handler func f() {}", file: "A.swift", line: 1, column: 1, context: .local)
        #expect(local.diagnostics.first?.message.contains("local function") == true)
        let member = SourceScanner.scanDeclaration(
            "@handler func f() {}", file: "A.swift", line: 3, column: 5, context: .type(path: "A.B", isProtocol: false))
        #expect(member.diagnostics.first?.message.contains("needs 'instance:'") == true)
        #expect(member.diagnostics.first?.fixIts.first?.line == 3)
        #expect(member.diagnostics.first?.fixIts.first?.column == 13)
        let requirement = SourceScanner.scanDeclaration(
            "@handler static func f()", file: "A.swift", line: 1, column: 1, context: .type(path: "P", isProtocol: true)
        )
        #expect(requirement.diagnostics.first?.message.contains("protocol 'P'") == true)
        let instance = SourceScanner.scanDeclaration(
            "@handler(instance: \"a.b\") func f() {}", file: "A.swift", line: 1, column: 1,
            context: .type(path: "A.B", isProtocol: false))
        #expect(instance.diagnostics == [])
        #expect(instance.handlers.first?.id == "A.B.f")
        #expect(instance.handlers.first?.kind == .instance)
    }

    @Test func leadingCommentsAndQualifiedAttribute() {
        let result = SourceScanner.scanDeclaration(
            "/// Docs @handler\n@HandlerKit.handler(id: \"x\") func f() {}", file: "A.swift", line: 1, column: 1,
            context: .fileScope)
        #expect(result.diagnostics == [])
        #expect(result.handlers.first?.id == "x")
        #expect(result.handlers.first?.line == 2)
    }

    @Test func noAttributeOrNotAFunction() {
        let none = SourceScanner.scanDeclaration(
            "func f() {}", file: "A.swift", line: 4, column: 2, context: .fileScope)
        #expect(none.handlers.isEmpty)
        #expect(none.diagnostics.map(\.line) == [4])
        #expect(none.diagnostics.first?.message.contains("no @handler attribute") == true)
        let variable = SourceScanner.scanDeclaration(
            "@handler var x = 1", file: "A.swift", line: 4, column: 2, context: .fileScope)
        #expect(variable.diagnostics.first?.message.contains("'var'") == true)
        #expect(variable.diagnostics.first?.column == 2)
    }
}
