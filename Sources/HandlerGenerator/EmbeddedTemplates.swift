// Generated from Templates/*.mustache — do not edit. Re-record with
//     HANDLERKIT_RECORD=1 swift test --filter HandlerGeneratorTests
// (a test fails while this copy differs from Templates/).

/// The texts of `Templates/*.mustache`, keyed by file name without the extension: the fallback
/// when the package's `Templates/` folder is not next to the sources (see `Templates`).
enum EmbeddedTemplates {
    static let all: [String: String] = [
        "call": #"""
{{% CONTENT_TYPE: TEXT}}
{{#hasReferenceDoc}}
{{#sourceLocations}}
#sourceLocation(file: "{{file}}", line: {{referenceDocLine}})
{{/sourceLocations}}
/// Calls `{{handlerName}}`, a handler of `{{id}}`, with these call-time values, checked by the compiler (`nil` leaves a parameter to its bound value).
{{/hasReferenceDoc}}
{{^hasReferenceDoc}}
{{#sourceLocations}}
#sourceLocation(file: "{{file}}", line: {{referenceLine}})
{{/sourceLocations}}
{{/hasReferenceDoc}}
{{callModifiers}}func {{callName}}(_ {{handlerName}}: Handler{{#hasParameters}}, {{/hasParameters}}{{#callParameterRows}}{{#isContinuation}}{{blankLines}}
    {{/isContinuation}}{{#items}}{{declaration}}{{separator}}{{/items}}{{/callParameterRows}}) {{#isAsync}}async {{/isAsync}}throws {
{{#sourceLocations}}
    #sourceLocation()
{{/sourceLocations}}
    try {{#isAsync}}await {{/isAsync}}{{handlerName}}.callBound(as: "{{id}}") { {{argumentsName}}{{callClosureEffects}} in
{{#bindsLocals}}
{{#hasParameters}}
{{#sourceLocations}}
        #sourceLocation(file: "{{file}}", line: {{localsLine}})
{{/sourceLocations}}
        {{#localRows}}{{#isContinuation}}{{blankLines}}
        {{/isContinuation}}{{#items}}let {{name}}: {{type}} = try {{callTimeName}} ?? {{argumentsName}}.{{accessor}}("{{key}}"{{#hasDefault}}, default: {{defaultValue}}{{/hasDefault}}){{separator}}{{/items}}{{/localRows}}
{{/hasParameters}}
{{/bindsLocals}}
{{^hasCallVariants}}
{{#sourceLocations}}
        #sourceLocation(file: "{{file}}", line: {{callLine}})
{{/sourceLocations}}
        {{callPrefix}}{{callee}}({{#callRows}}{{#isContinuation}}{{blankLines}}
            {{/isContinuation}}{{#items}}{{label}}{{typedValue}}{{separator}}{{/items}}{{/callRows}})
{{#sourceLocations}}
        #sourceLocation()
{{/sourceLocations}}
{{/hasCallVariants}}
{{#hasCallVariants}}
{{#callVariants}}
        {{opening}}
{{#sourceLocations}}
            #sourceLocation(file: "{{file}}", line: {{callLine}})
{{/sourceLocations}}
            {{callPrefix}}{{callee}}({{arguments}})
{{#sourceLocations}}
            #sourceLocation()
{{/sourceLocations}}
{{/callVariants}}
        }
{{/hasCallVariants}}
    }
}

"""#,
        "ctype": #"""
{{% CONTENT_TYPE: TEXT}}
{{#isStructure}}
/// JSON conversion of the C struct `{{name}}` ({{location}}), so handlers can bind it:
/// an object with one member per field.
extension {{name}}: @retroactive Codable {
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: CFieldKey.self)
{{#decodeLines}}
        {{text}}
{{/decodeLines}}
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CFieldKey.self)
{{#encodeLines}}
        {{text}}
{{/encodeLines}}
    }
}
{{/isStructure}}
{{^isStructure}}
/// JSON conversion of the C enum `{{name}}` ({{location}}), so handlers can bind it:
/// its raw value.
extension {{name}}: @retroactive Codable {
    public init(from decoder: any Decoder) throws {
        self = try CValueCoding.enumeration({{name}}.self, from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
{{/isStructure}}

"""#,
        "descriptor": #"""
{{% CONTENT_TYPE: TEXT}}
/// The registry entry of `{{id}}`: its parameters, and the shim that takes its arguments and calls it.
{{descriptorModifiers}}func {{descriptorName}}() -> HandlerDescriptor {
{{#hasParameters}}
{{#sourceLocations}}
    #sourceLocation(file: "{{file}}", line: {{parametersLine}})
{{/sourceLocations}}
    let parameters: [HandlerParameter] = [{{#parameterRows}}{{#isContinuation}}{{blankLines}}
        {{/isContinuation}}{{#items}}.{{kind}}("{{key}}", {{metatype}}.self{{formerNames}}){{separator}}{{/items}}{{/parameterRows}}]
{{#sourceLocations}}
    #sourceLocation()
{{/sourceLocations}}
{{/hasParameters}}
{{^hasParameters}}
    let parameters: [HandlerParameter] = []
{{/hasParameters}}
    return HandlerDescriptor(id: "{{id}}", {{formerIDsArgument}}parameters: parameters, {{invokeLabel}}: { {{shimIsolation}}{{argumentsName}} in
{{#bindsLocals}}
{{#hasParameters}}
{{#sourceLocations}}
        #sourceLocation(file: "{{file}}", line: {{localsLine}})
{{/sourceLocations}}
        {{#localRows}}{{#isContinuation}}{{blankLines}}
        {{/isContinuation}}{{#items}}let {{name}}: {{type}} = try {{argumentsName}}.{{accessor}}("{{key}}"{{#hasDefault}}, default: {{defaultValue}}{{/hasDefault}}){{separator}}{{/items}}{{/localRows}}
{{/hasParameters}}
{{/bindsLocals}}
{{^hasCallVariants}}
{{#sourceLocations}}
        #sourceLocation(file: "{{file}}", line: {{callLine}})
{{/sourceLocations}}
        {{callPrefix}}{{callee}}({{#callRows}}{{#isContinuation}}{{blankLines}}
            {{/isContinuation}}{{#items}}{{label}}{{value}}{{separator}}{{/items}}{{/callRows}})
{{#sourceLocations}}
        #sourceLocation()
{{/sourceLocations}}
{{/hasCallVariants}}
{{#hasCallVariants}}
{{#callVariants}}
        {{opening}}
{{#sourceLocations}}
            #sourceLocation(file: "{{file}}", line: {{callLine}})
{{/sourceLocations}}
            {{callPrefix}}{{callee}}({{arguments}})
{{#sourceLocations}}
            #sourceLocation()
{{/sourceLocations}}
{{/callVariants}}
        }
{{/hasCallVariants}}
    })
}

"""#,
        "file": #"""
{{% CONTENT_TYPE: TEXT}}
// Generated by handlergen from the @handler functions of module {{moduleName}}. Do not edit:
// the HandlerKit build plugin (or `handlergen generate`) rewrites this file from the sources.
//
// Register the module's handlers once at start-up:
//     try HandlerRegistry.shared.register(.{{tableName}})

@_spi(HandlerKitGenerated) import HandlerKit
{{#sourceImports}}
{{#conditions}}
#if {{expression}}
{{/conditions}}
{{declaration}}
{{#conditions}}
#endif
{{/conditions}}
{{/sourceImports}}
{{#cImports}}
import {{name}}
{{/cImports}}

/// Tells `@handler` that the build plugin ran for this module: it shadows HandlerKit's unavailable
/// fallback of the same name, whose message says to add the plugin.
enum _HandlerKitGeneratedFile {}

extension HandlerTable {
    /// Every `@handler` function of module `{{moduleName}}`.
{{#hasHandlers}}
    public static let {{tableName}}: HandlerTable = {
        var handlers: [HandlerDescriptor] = []
        handlers.reserveCapacity({{handlerCount}})
{{#handlers}}
{{#conditions}}
        #if {{expression}}
{{/conditions}}
        handlers.append({{qualifier}}{{descriptorName}}())
{{#conditions}}
        #endif
{{/conditions}}
{{/handlers}}
        return HandlerTable(module: "{{moduleName}}", handlers: handlers)
    }()
{{/hasHandlers}}
{{^hasHandlers}}
    public static let {{tableName}} = HandlerTable(module: "{{moduleName}}", handlers: [])
{{/hasHandlers}}
}
{{#handlers}}

// MARK: {{id}}

{{#conditions}}
#if {{expression}}
{{/conditions}}
{{#isMember}}
extension {{enclosingType}} {
{{/isMember}}
{{members}}
{{#isMember}}
}
{{/isMember}}
{{#conditions}}
#endif
{{/conditions}}
{{/handlers}}
{{#cTypes}}

// MARK: C type {{name}}

{{text}}
{{/cTypes}}

"""#,
        "reference": #"""
{{% CONTENT_TYPE: TEXT}}
/// The id of `{{id}}` as a value the compiler checks, e.g. for an invalidation target.
{{referenceModifiers}}var {{idName}}: HandlerID { HandlerID("{{id}}") }

{{#hasReferenceDoc}}
{{#sourceLocations}}
#sourceLocation(file: "{{file}}", line: {{referenceDocLine}})
{{/sourceLocations}}
/// A new `Handler` for `{{id}}` with these values bound (`nil` leaves one to be passed at call time).
{{/hasReferenceDoc}}
{{^hasReferenceDoc}}
{{#sourceLocations}}
#sourceLocation(file: "{{file}}", line: {{referenceLine}})
{{/sourceLocations}}
{{/hasReferenceDoc}}
{{referenceModifiers}}func {{referenceName}}({{#referenceRows}}{{#isContinuation}}{{blankLines}}
    {{/isContinuation}}{{#items}}{{declaration}}{{separator}}{{/items}}{{/referenceRows}}) throws -> Handler {
{{#sourceLocations}}
    #sourceLocation()
{{/sourceLocations}}
{{#hasParameters}}
    var {{bindingsName}} = HandlerBindings()
{{#bindings}}
    {{bindingsName}}.bind("{{key}}", {{name}})
{{/bindings}}
    return try Handler(id: "{{id}}", module: "{{moduleName}}", table: "{{tableName}}", bound: {{bindingsName}}, invalidation: {{invalidationName}}?.id, registry: {{registryName}})
{{/hasParameters}}
{{^hasParameters}}
    return try Handler(id: "{{id}}", module: "{{moduleName}}", table: "{{tableName}}", invalidation: {{invalidationName}}?.id, registry: {{registryName}})
{{/hasParameters}}
}

"""#,
    ]
}
