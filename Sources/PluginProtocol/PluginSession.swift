#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The plugin's side of one conversation with the compiler: remembers the host's capability and
/// answers each request. Every request gets one response, including requests it cannot read.
package struct PluginSession: Sendable {
    /// The protocol version this plugin speaks (that of swift-syntax 600 to 603, i.e. Swift 6.0–6.3).
    package static let protocolVersion = 7
    /// The first host version that accepts `expandMacroResult`; older hosts get the legacy results.
    package static let unifiedResultVersion = 5

    /// What the host announced, or `nil` before `getCapability` or when it sent no capability.
    package private(set) var hostCapability: HostCapability?
    private let expander: HandlerMacroExpander

    package init(expander: HandlerMacroExpander = HandlerMacroExpander()) {
        self.expander = expander
    }

    /// Whether the host takes the unified `expandMacroResult` (protocol version 5 or later).
    package var hostAcceptsUnifiedResult: Bool {
        (hostCapability?.protocolVersion ?? 0) >= Self.unifiedResultVersion
    }

    /// The response to one decoded request.
    package mutating func response(to message: HostMessage) -> PluginResponse {
        switch message {
        case .getCapability(let capability):
            if let capability {
                hostCapability = capability
            }
            return .getCapabilityResult(PluginCapability(protocolVersion: Self.protocolVersion))
        case .expandAttachedMacro(let request):
            let (peers, diagnostics) = expander.expansion(for: request)
            return hostAcceptsUnifiedResult
                ? .expandMacroResult(expandedSource: peers.joined(separator: "\n"), diagnostics: diagnostics)
                : .expandAttachedMacroResult(expandedSources: peers, diagnostics: diagnostics)
        case .expandFreestandingMacro(let request):
            let location = request.syntax.location
            let diagnostic = PluginDiagnostic(
                message: "'\(request.macro.name.trimmingTrailingWhitespace)' is implemented by "
                    + "HandlerKitMacros, which provides only the attached macro '@handler'",
                severity: .error,
                position: .init(
                    fileName: location.fileName,
                    offset: location.offset + TokenCursor.triviaLength(of: request.syntax.source)))
            return hostAcceptsUnifiedResult
                ? .expandMacroResult(expandedSource: nil, diagnostics: [diagnostic])
                : .expandFreestandingMacroResult(expandedSource: nil, diagnostics: [diagnostic])
        case .loadPluginLibrary(let libraryPath, _):
            return .loadPluginLibraryResult(
                loaded: false,
                diagnostics: [
                    PluginDiagnostic(
                        message: "HandlerKitMacros cannot load plugin libraries ('\(libraryPath)')",
                        severity: .error, position: .unknown)
                ])
        case .unknown(let kind):
            return failure("HandlerKitMacros does not understand the compiler's '\(kind)' request")
        }
    }

    /// The response to one message body: decodes it and answers it, or answers with an error
    /// diagnostic when it is not a message this plugin can read (invalid JSON, missing fields).
    package mutating func response(toPayload payload: [UInt8]) -> PluginResponse {
        let message: HostMessage
        do {
            message = try JSONDecoder().decode(HostMessage.self, from: Data(payload))
        } catch {
            return failure("HandlerKitMacros could not read a message from the compiler: \(Self.summary(of: error))")
        }
        return response(to: message)
    }

    /// Encodes a response as the JSON body of a frame.
    package static func encode(_ response: PluginResponse) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(response))
    }

    /// A failed expansion carrying one error, in the result form the host accepts.
    private func failure(_ message: String) -> PluginResponse {
        let diagnostic = PluginDiagnostic(message: message, severity: .error, position: .unknown)
        return hostAcceptsUnifiedResult
            ? .expandMacroResult(expandedSource: nil, diagnostics: [diagnostic])
            : .expandAttachedMacroResult(expandedSources: nil, diagnostics: [diagnostic])
    }

    /// A one-line account of a decoding error.
    private static func summary(of error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return "\(error)" }
        switch decodingError {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(decodingError)"
        }
    }
}

extension String {
    /// The string without trailing spaces and line breaks (the compiler sends macro names like `handler `).
    var trimmingTrailingWhitespace: String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
