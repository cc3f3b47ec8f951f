import Foundation
import PluginProtocol
import Testing

@Suite("Plugin session: capability exchange and message handling")
struct PluginSessionTests {
    /// The first message of Swift 6.0 to 6.3 compilers (observed from Swift 6.3.1).
    static let modernHello = #"{"getCapability":{"capability":{"protocolVersion":7}}}"#
    /// Compilers before the capability field send the kind with no fields.
    static let legacyHello = #"{"getCapability":{}}"#

    static let validRequest = CompilerRequests(
        source: """
            enum Carbons {
                @handler
                static func enabled(account: String, iqNode: Int) { }
            }
            """
    ).request(
        for: "@handler\n    static func enabled(account: String, iqNode: Int) { }", context: ["\nenum Carbons {}"])

    private func respond(_ session: inout PluginSession, _ json: String) throws -> (PluginResponse, [String: Any]) {
        let response = session.response(toPayload: Array(json.utf8))
        let bytes = try PluginSession.encode(response)
        return (try WireJSON.decodeResponse(bytes), try WireJSON.object(bytes))
    }

    /// The peer a valid handler of module `App` expands to: it compiles only beside the generated file.
    static let validPeer =
        "private static func `enabled`(_handlerKitPluginOf_App_474fccfb: _HandlerKitGeneratedFile) {}"

    @Test func modernHostGetsVersion7AndUnifiedExpansionResult() throws {
        var session = PluginSession()
        let (hello, helloJSON) = try respond(&session, Self.modernHello)
        #expect(hello == .getCapabilityResult(PluginCapability(protocolVersion: 7)))
        let capability = (helloJSON["getCapabilityResult"] as? [String: Any])?["capability"] as? [String: Any]
        #expect(capability?["protocolVersion"] as? Int == 7)
        #expect(session.hostCapability == HostCapability(protocolVersion: 7))
        #expect(session.hostAcceptsUnifiedResult)

        let request = String(decoding: try WireJSON.encode(.expandAttachedMacro(Self.validRequest)), as: UTF8.self)
        let (expansion, expansionJSON) = try respond(&session, request)
        #expect(expansion == .expandMacroResult(expandedSource: Self.validPeer, diagnostics: []))
        let fields = expansionJSON["expandMacroResult"] as? [String: Any]
        #expect(fields?["expandedSource"] as? String == Self.validPeer)
        #expect((fields?["diagnostics"] as? [Any])?.isEmpty == true)
    }

    @Test func hostWithoutCapabilityGetsLegacyAttachedResult() throws {
        var session = PluginSession()
        let (hello, _) = try respond(&session, Self.legacyHello)
        #expect(hello == .getCapabilityResult(PluginCapability(protocolVersion: 7)))
        #expect(session.hostCapability == nil)
        #expect(!session.hostAcceptsUnifiedResult)

        let (expansion, json) = try respond(
            &session, String(decoding: try WireJSON.encode(.expandAttachedMacro(Self.validRequest)), as: UTF8.self))
        #expect(expansion == .expandAttachedMacroResult(expandedSources: [Self.validPeer], diagnostics: []))
        #expect(
            (json["expandAttachedMacroResult"] as? [String: Any])?["expandedSources"] as? [String] == [Self.validPeer])
    }

    @Test func hostOfProtocolVersion4GetsLegacyResult() throws {
        var session = PluginSession()
        _ = try respond(&session, #"{"getCapability":{"capability":{"protocolVersion":4}}}"#)
        #expect(!session.hostAcceptsUnifiedResult)
        #expect(
            session.response(to: .expandAttachedMacro(Self.validRequest))
                == .expandAttachedMacroResult(expandedSources: [Self.validPeer], diagnostics: []))
    }

    @Test func expansionBeforeAnyCapabilityExchangeIsAnswered() {
        var session = PluginSession()
        #expect(
            session.response(to: .expandAttachedMacro(Self.validRequest))
                == .expandAttachedMacroResult(expandedSources: [Self.validPeer], diagnostics: []))
    }

    @Test func decodesARequestExactlyAsTheCompilerSendsIt() throws {
        // Shape and field order as sent by Swift 6.3.1 (staticBuildConfiguration shortened).
        let json = #"""
            {"expandAttachedMacro":{"attributeSyntax":{"kind":"attribute","location":{"column":15,"fileID":"t1/t1.swift","fileName":"t1.swift","line":4,"offset":163},"source":"\n    @handler"},"declSyntax":{"kind":"declaration","location":{"column":15,"fileID":"t1/t1.swift","fileName":"t1.swift","line":4,"offset":163},"source":"\n    @handler\n    static func enabled(account: Int, iqNode: String) { }"},"discriminator":"$s2t17CarbonsO7enabled7handlerfMp_","lexicalContext":[{"kind":"declaration","location":{"column":0,"fileID":"","fileName":"","line":0,"offset":0},"source":"\n\nenum Carbons {}"}],"macro":{"moduleName":"HandlerKitMacros","name":"handler","typeName":"HandlerMacro"},"macroRole":"peer","staticBuildConfiguration":"{\"compilerVersion\":{\"components\":[6,3,1]}}"}}
            """#
        let message = try JSONDecoder().decode(HostMessage.self, from: Data(json.utf8))
        guard case .expandAttachedMacro(let request) = message else {
            Issue.record("decoded \(message)")
            return
        }
        #expect(request.macro.typeName == "HandlerMacro")
        #expect(
            request.declSyntax.location
                == .init(fileID: "t1/t1.swift", fileName: "t1.swift", offset: 163, line: 4, column: 15))
        #expect(request.lexicalContext?.first?.source == "\n\nenum Carbons {}")
        #expect(request.parentDeclSyntax == nil)
        var session = PluginSession()
        _ = session.response(to: .getCapability(HostCapability(protocolVersion: 7)))
        #expect(
            session.response(to: message)
                == .expandMacroResult(
                    expandedSource:
                        "private static func `enabled`(_handlerKitPluginOf_t1_40a8abc2: _HandlerKitGeneratedFile) {}",
                    diagnostics: []))
    }

    @Test func requestWithoutLexicalContextIsStillValidated() throws {
        var request = Self.validRequest
        request.lexicalContext = nil
        var session = PluginSession()
        _ = session.response(to: .getCapability(HostCapability(protocolVersion: 7)))
        #expect(
            session.response(to: .expandAttachedMacro(request))
                == .expandMacroResult(expandedSource: Self.validPeer, diagnostics: []))
    }

    @Test func messageRoundTripsThroughTheModel() throws {
        let messages: [HostMessage] = [
            .getCapability(nil), .getCapability(HostCapability(protocolVersion: 7)),
            .expandAttachedMacro(Self.validRequest),
            .loadPluginLibrary(libraryPath: "/x/libM.so", moduleName: "M"),
        ]
        for message in messages {
            #expect(try JSONDecoder().decode(HostMessage.self, from: Data(WireJSON.encode(message))) == message)
        }
    }

    @Test func unknownMessageKindIsAnsweredWithAnError() throws {
        var session = PluginSession()
        _ = try respond(&session, Self.modernHello)
        let (response, _) = try respond(&session, #"{"expandSomethingNew":{"field":[1,2,3]}}"#)
        guard case .expandMacroResult(let source, let diagnostics) = response else {
            Issue.record("unexpected \(response)")
            return
        }
        #expect(source == nil)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.severity == .error)
        #expect(diagnostics.first?.message.contains("expandSomethingNew") == true)
    }

    @Test(arguments: [
        "not json at all", "{", "[1,2]", "42", "{}", #"{"a":{},"b":{}}"#, #"{"getCapability":[]}"#,
        #"{"expandAttachedMacro":{"macro":{}}}"#, "\u{FF}\u{FE}",
    ])
    func unreadableMessageIsAnsweredWithAnError(json: String) throws {
        var session = PluginSession()
        _ = try respond(&session, Self.modernHello)
        let response = session.response(toPayload: Array(json.utf8))
        #expect(response.kind == "expandMacroResult")
        #expect(response.diagnostics.first?.severity == .error)
        #expect(response.diagnostics.first?.message.contains("could not read a message") == true)
    }

    @Test func invalidUTF8BodyIsAnsweredWithAnError() {
        var session = PluginSession()
        let response = session.response(toPayload: [0xFF, 0xFE, 0x7B, 0x00])
        #expect(response.diagnostics.first?.severity == .error)
    }

    @Test func freestandingExpansionIsRefused() {
        var session = PluginSession()
        _ = session.response(to: .getCapability(HostCapability(protocolVersion: 7)))
        let snippet = SyntaxSnippet(
            kind: "expression", source: " #handler()",
            location: .init(fileID: "A/a.swift", fileName: "a.swift", offset: 10, line: 2, column: 3))
        let response = session.response(
            to: .expandFreestandingMacro(
                FreestandingMacroRequest(
                    macro: MacroReference(moduleName: "HandlerKitMacros", typeName: "HandlerMacro", name: "handler "),
                    syntax: snippet)))
        #expect(response.kind == "expandMacroResult")
        #expect(response.diagnostics.first?.position == .init(fileName: "a.swift", offset: 11))
        #expect(response.diagnostics.first?.message.contains("'handler'") == true)
    }

    @Test func loadPluginLibraryIsDeclined() {
        var session = PluginSession()
        let response = session.response(to: .loadPluginLibrary(libraryPath: "/x/libM.so", moduleName: "M"))
        guard case .loadPluginLibraryResult(let loaded, let diagnostics) = response else {
            Issue.record("unexpected \(response)")
            return
        }
        #expect(!loaded)
        #expect(diagnostics.count == 1)
    }

    @Test func unknownMacroTypeIsReportedAtTheAttribute() {
        let requests = CompilerRequests(source: "@handler\nfunc f() {}\n")
        let request = requests.request(for: "@handler\nfunc f() {}", typeName: "SomethingElse")
        let diagnostics = HandlerMacroExpander().diagnostics(for: request)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.position == .init(fileName: requests.fileName, offset: 0))
        #expect(diagnostics.first?.message.contains("SomethingElse") == true)
    }
}
