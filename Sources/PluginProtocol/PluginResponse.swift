/// A reply from the plugin to the compiler; every request gets exactly one.
package enum PluginResponse: Codable, Equatable, Sendable {
    /// Answer to `getCapability`.
    case getCapabilityResult(PluginCapability)
    /// Answer to an expansion request, for hosts of protocol version 5 or later (all Swift 6 compilers).
    /// `expandedSource` is `nil` when expansion failed.
    case expandMacroResult(expandedSource: String?, diagnostics: [PluginDiagnostic])
    /// Answer to `expandAttachedMacro` for hosts older than protocol version 5, one source per peer.
    case expandAttachedMacroResult(expandedSources: [String]?, diagnostics: [PluginDiagnostic])
    /// Answer to `expandFreestandingMacro` for hosts older than protocol version 5.
    case expandFreestandingMacroResult(expandedSource: String?, diagnostics: [PluginDiagnostic])
    /// Answer to `loadPluginLibrary`.
    case loadPluginLibraryResult(loaded: Bool, diagnostics: [PluginDiagnostic])

    /// The wire name of the message kind.
    package var kind: String {
        switch self {
        case .getCapabilityResult: return "getCapabilityResult"
        case .expandMacroResult: return "expandMacroResult"
        case .expandAttachedMacroResult: return "expandAttachedMacroResult"
        case .expandFreestandingMacroResult: return "expandFreestandingMacroResult"
        case .loadPluginLibraryResult: return "loadPluginLibraryResult"
        }
    }

    /// The diagnostics the response carries (none for a capability answer).
    package var diagnostics: [PluginDiagnostic] {
        switch self {
        case .getCapabilityResult: return []
        case .expandMacroResult(_, let diagnostics),
            .expandAttachedMacroResult(_, let diagnostics),
            .expandFreestandingMacroResult(_, let diagnostics),
            .loadPluginLibraryResult(_, let diagnostics):
            return diagnostics
        }
    }

    private enum Keys: String, CodingKey {
        case capability, expandedSource, expandedSources, diagnostics, loaded
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MessageKindKey.self)
        let key = try MessageKindKey.single(in: container, decoder: decoder)
        let fields = try container.nestedContainer(keyedBy: Keys.self, forKey: key)
        func diagnostics() throws -> [PluginDiagnostic] {
            try fields.decodeIfPresent([PluginDiagnostic].self, forKey: .diagnostics) ?? []
        }
        switch key.stringValue {
        case "getCapabilityResult":
            self = .getCapabilityResult(try fields.decode(PluginCapability.self, forKey: .capability))
        case "expandMacroResult":
            self = .expandMacroResult(
                expandedSource: try fields.decodeIfPresent(String.self, forKey: .expandedSource),
                diagnostics: try diagnostics())
        case "expandAttachedMacroResult":
            self = .expandAttachedMacroResult(
                expandedSources: try fields.decodeIfPresent([String].self, forKey: .expandedSources),
                diagnostics: try diagnostics())
        case "expandFreestandingMacroResult":
            self = .expandFreestandingMacroResult(
                expandedSource: try fields.decodeIfPresent(String.self, forKey: .expandedSource),
                diagnostics: try diagnostics())
        case "loadPluginLibraryResult":
            self = .loadPluginLibraryResult(
                loaded: try fields.decode(Bool.self, forKey: .loaded), diagnostics: try diagnostics())
        default:
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "unknown response kind '\(key.stringValue)'")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MessageKindKey.self)
        var fields = container.nestedContainer(keyedBy: Keys.self, forKey: MessageKindKey(kind))
        switch self {
        case .getCapabilityResult(let capability):
            try fields.encode(capability, forKey: .capability)
        case .expandMacroResult(let source, let diagnostics),
            .expandFreestandingMacroResult(let source, let diagnostics):
            try fields.encodeIfPresent(source, forKey: .expandedSource)
            try fields.encode(diagnostics, forKey: .diagnostics)
        case .expandAttachedMacroResult(let sources, let diagnostics):
            try fields.encodeIfPresent(sources, forKey: .expandedSources)
            try fields.encode(diagnostics, forKey: .diagnostics)
        case .loadPluginLibraryResult(let loaded, let diagnostics):
            try fields.encode(loaded, forKey: .loaded)
            try fields.encode(diagnostics, forKey: .diagnostics)
        }
    }
}

/// What the plugin says about itself in answer to `getCapability`.
package struct PluginCapability: Codable, Equatable, Sendable {
    /// The protocol version the plugin speaks.
    package var protocolVersion: Int
    /// Optional features; this plugin offers none (no `load-plugin-library`).
    package var features: [String]?

    package init(protocolVersion: Int, features: [String]? = nil) {
        self.protocolVersion = protocolVersion
        self.features = features
    }
}
