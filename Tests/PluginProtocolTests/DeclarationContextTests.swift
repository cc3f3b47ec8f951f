import HandlerScanner
import Testing

@testable import PluginProtocol

@Suite("Lexical context to declaration context")
struct DeclarationContextTests {
    private func context(_ sources: [String], kind: String = "declaration") -> DeclarationContext {
        DeclarationContextResolver.context(
            lexicalContext: sources.map {
                SyntaxSnippet(
                    kind: $0.hasPrefix("{") ? "expression" : kind, source: $0,
                    location: .init(fileID: "", fileName: "", offset: 0, line: 0, column: 0))
            })
    }

    // The snippets are as Swift 6.3.1 sends them: innermost first, members removed.
    @Test func fileScope() {
        #expect(context([]) == .fileScope)
    }

    @Test func typesAndExtensions() {
        #expect(context(["\n\nenum Carbons {}"]) == .type(path: "Carbons", isProtocol: false))
        #expect(
            context(["\n    struct Inner {}", "\nextension OMEMO {}"]) == .type(path: "OMEMO.Inner", isProtocol: false))
        #expect(context(["actor A {}", "\n@MainActor struct S {}"]) == .type(path: "S.A", isProtocol: false))
        #expect(
            context(["\n\npublic final class G<T>: Sendable where T: Sendable {}"])
                == .type(path: "G", isProtocol: false))
        #expect(
            context(["\nextension Swift.Array where Element == Int {}"])
                == .type(path: "Swift.Array", isProtocol: false))
        #expect(context(["extension Outer . Inner: P {}"]) == .type(path: "Outer.Inner", isProtocol: false))
        #expect(
            context(["/// doc\n@available(macOS 13, *) public indirect enum E {}"])
                == .type(path: "E", isProtocol: false))
    }

    @Test func protocols() {
        #expect(context(["\n\nprotocol P {}"]) == .type(path: "P", isProtocol: true))
        #expect(context(["struct S {}", "protocol P {}"]) == .type(path: "P.S", isProtocol: false))
    }

    @Test func localContexts() {
        #expect(context(["\nfunc outer() "]) == .local)
        #expect(context(["{ }"]) == .local)
        #expect(context(["struct L {}", "\nfunc h() "]) == .local)
        #expect(context(["var v: Int {}", "enum E {}"]) == .local)
        #expect(context(["class func f() "]) == .local)
        #expect(context(["init() "]) == .local)
        #expect(context(["garbage (("]) == .local)
    }

    @Test func fallbackWithoutLexicalContext() {
        func fallback(_ source: String) -> DeclarationContext {
            DeclarationContextResolver.fallbackContext(
                declaration: SyntaxSnippet(
                    kind: "declaration", source: source,
                    location: .init(fileID: "", fileName: "", offset: 0, line: 1, column: 1)))
        }
        #expect(fallback("\n    @handler\n    static func f() {}") == .type(path: "", isProtocol: false))
        #expect(fallback("@handler class func f() {}") == .type(path: "", isProtocol: false))
        #expect(fallback("@handler(instance: \"x\") func f() {}") == .type(path: "", isProtocol: false))
        #expect(fallback("@handler(id: \"x\") func f() {}") == .fileScope)
    }
}
