/// A request from the compiler (the plugin host).
///
/// On the wire each is a one-key JSON object, e.g. `{"getCapability":{"capability":{"protocolVersion":7}}}`.
/// Kinds this plugin does not know decode to ``unknown(kind:)`` so that it can answer them instead of
/// failing.
package enum HostMessage: Codable, Equatable, Sendable {
    /// The first message of a session: the host's protocol version, absent from old compilers.
    case getCapability(HostCapability?)
    /// Expand an attached macro such as `@handler`.
    case expandAttachedMacro(AttachedMacroRequest)
    /// Expand a freestanding macro (`#name`); `@handler` is not one, so this is answered with an error.
    case expandFreestandingMacro(FreestandingMacroRequest)
    /// Load a library of in-process macros; sent only to plugins that announce the feature, which
    /// this one does not.
    case loadPluginLibrary(libraryPath: String, moduleName: String)
    /// A message kind this plugin does not know.
    case unknown(kind: String)

    /// The wire name of the message kind.
    package var kind: String {
        switch self {
        case .getCapability: return "getCapability"
        case .expandAttachedMacro: return "expandAttachedMacro"
        case .expandFreestandingMacro: return "expandFreestandingMacro"
        case .loadPluginLibrary: return "loadPluginLibrary"
        case .unknown(let kind): return kind
        }
    }

    private enum CapabilityKeys: String, CodingKey {
        case capability
    }

    private enum LibraryKeys: String, CodingKey {
        case libraryPath, moduleName
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MessageKindKey.self)
        let key = try MessageKindKey.single(in: container, decoder: decoder)
        switch key.stringValue {
        case "getCapability":
            let fields = try container.nestedContainer(keyedBy: CapabilityKeys.self, forKey: key)
            self = .getCapability(try fields.decodeIfPresent(HostCapability.self, forKey: .capability))
        case "expandAttachedMacro":
            self = .expandAttachedMacro(try container.decode(AttachedMacroRequest.self, forKey: key))
        case "expandFreestandingMacro":
            self = .expandFreestandingMacro(try container.decode(FreestandingMacroRequest.self, forKey: key))
        case "loadPluginLibrary":
            let fields = try container.nestedContainer(keyedBy: LibraryKeys.self, forKey: key)
            self = .loadPluginLibrary(
                libraryPath: try fields.decode(String.self, forKey: .libraryPath),
                moduleName: try fields.decode(String.self, forKey: .moduleName)
            )
        default:
            self = .unknown(kind: key.stringValue)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MessageKindKey.self)
        let key = MessageKindKey(kind)
        switch self {
        case .getCapability(let capability):
            var fields = container.nestedContainer(keyedBy: CapabilityKeys.self, forKey: key)
            try fields.encodeIfPresent(capability, forKey: .capability)
        case .expandAttachedMacro(let request):
            try container.encode(request, forKey: key)
        case .expandFreestandingMacro(let request):
            try container.encode(request, forKey: key)
        case .loadPluginLibrary(let libraryPath, let moduleName):
            var fields = container.nestedContainer(keyedBy: LibraryKeys.self, forKey: key)
            try fields.encode(libraryPath, forKey: .libraryPath)
            try fields.encode(moduleName, forKey: .moduleName)
        case .unknown:
            _ = container.nestedContainer(keyedBy: CapabilityKeys.self, forKey: key)
        }
    }
}

/// What the compiler says about itself in `getCapability`.
package struct HostCapability: Codable, Equatable, Sendable {
    /// The host's plugin protocol version: 7 for the Swift 6.0 to 6.3 compilers.
    package var protocolVersion: Int

    package init(protocolVersion: Int) {
        self.protocolVersion = protocolVersion
    }
}

/// The fields of an `expandAttachedMacro` request.
package struct AttachedMacroRequest: Codable, Equatable, Sendable {
    package var macro: MacroReference
    /// The role being expanded (`peer` for `@handler`); a string so unknown roles still decode.
    package var macroRole: String
    /// A unique string for naming expanded declarations; unused here.
    package var discriminator: String
    /// The attribute, e.g. `@handler(instance: "account.omemo")`, with its leading trivia.
    package var attributeSyntax: SyntaxSnippet
    /// The declaration the attribute is attached to, attributes and leading trivia included.
    package var declSyntax: SyntaxSnippet
    package var parentDeclSyntax: SyntaxSnippet?
    package var extendedTypeSyntax: SyntaxSnippet?
    package var conformanceListSyntax: SyntaxSnippet?
    /// The enclosing declarations and closures, innermost first, with their members removed
    /// (`extension OMEMO {}`). Sent by compilers since Swift 6.0; `nil` from older ones.
    package var lexicalContext: [SyntaxSnippet]?
    /// The compiler's build configuration as a JSON string (Swift 6.2 and later); unused here.
    package var staticBuildConfiguration: String?

    package init(
        macro: MacroReference, macroRole: String = "peer", discriminator: String = "",
        attributeSyntax: SyntaxSnippet, declSyntax: SyntaxSnippet,
        parentDeclSyntax: SyntaxSnippet? = nil, extendedTypeSyntax: SyntaxSnippet? = nil,
        conformanceListSyntax: SyntaxSnippet? = nil, lexicalContext: [SyntaxSnippet]? = nil,
        staticBuildConfiguration: String? = nil
    ) {
        self.macro = macro
        self.macroRole = macroRole
        self.discriminator = discriminator
        self.attributeSyntax = attributeSyntax
        self.declSyntax = declSyntax
        self.parentDeclSyntax = parentDeclSyntax
        self.extendedTypeSyntax = extendedTypeSyntax
        self.conformanceListSyntax = conformanceListSyntax
        self.lexicalContext = lexicalContext
        self.staticBuildConfiguration = staticBuildConfiguration
    }
}

/// The fields of an `expandFreestandingMacro` request that this plugin reads.
package struct FreestandingMacroRequest: Codable, Equatable, Sendable {
    package var macro: MacroReference
    /// The macro expansion expression or declaration.
    package var syntax: SyntaxSnippet

    package init(macro: MacroReference, syntax: SyntaxSnippet) {
        self.macro = macro
        self.syntax = syntax
    }
}
