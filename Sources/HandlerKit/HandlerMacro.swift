/// Marks a function as a HandlerKit handler: a function that can be referred to by a serializable
/// handler value, stored as JSON and called later, possibly in another process.
///
/// Its implementation, the `HandlerKitMacros` compiler plugin, checks the declaration and reports
/// misuse as a compiler error at the declaration: a `private` or `fileprivate` function, a generic
/// function, an `inout` or variadic parameter, a function that returns a value, a handler in a
/// protocol or a local function, an instance method without `instance:`, a static method with
/// `instance:`, or an unknown attribute argument. The build-tool plugin, `HandlerKitPlugin`, finds the
/// marked functions and generates their registration; a target that uses `@handler` without it fails
/// to compile at the attribute, with a message saying to add the plugin. (For that check the attribute
/// adds a private overload of the function that only the generated file lets compile.)
///
/// A handler returns `Void`: it may run later or in another process, where no caller waits for a
/// result. Report results through the handler's own effects, or bind a `Handler` to call back.
///
/// The forms:
///
/// ```swift
/// enum Carbons {
///     @handler                                   // static or class method: id "Carbons.enabled"
///     static func enabled(account: Account, iqNode: IQ) { … }
/// }
///
/// @handler                                       // free function at file scope: id "cleanUp"
/// func cleanUp(reason: String) { … }
/// ```
///
/// A handler may be `async` and/or `throws`, and may live in an extension or a nested type
/// (`Outer.Inner`). Its id is `Type.Path.name`, or just `name` at file scope, unless given with
/// ``handler(id:)``.
@attached(peer, names: overloaded)
public macro handler() = #externalMacro(module: "HandlerKitMacros", type: "HandlerMacro")

/// Marks a function as a handler with a stable id that survives renames of the function or its type.
///
/// ```swift
/// @handler(id: "cleanup.v1")
/// func cleanUp(reason: String) { … }
/// ```
///
/// - Parameter id: the handler's id, stored in its JSON form; unique within the module.
@attached(peer, names: overloaded)
public macro handler(id: String) = #externalMacro(module: "HandlerKitMacros", type: "HandlerMacro")

/// Marks an instance method as a handler. `instance` tells how to find the object to call the method
/// on: a Swift expression over the handler's parameters, evaluated when the handler is called.
///
/// ```swift
/// extension OMEMO {
///     @handler(instance: "account.omemo")
///     func bundleFetched(account: Account, jid: String, success: Bool) async throws { … }
/// }
/// ```
///
/// - Parameter instance: an expression of the method's type, written as a string literal.
@attached(peer, names: overloaded)
public macro handler(instance: String) = #externalMacro(module: "HandlerKitMacros", type: "HandlerMacro")

/// Marks an instance method as a handler with a stable id; see ``handler(id:)`` and
/// ``handler(instance:)``.
///
/// - Parameters:
///   - id: the handler's id, stored in its JSON form; unique within the module.
///   - instance: an expression of the method's type, written as a string literal.
@attached(peer, names: overloaded)
public macro handler(id: String, instance: String) =
    #externalMacro(module: "HandlerKitMacros", type: "HandlerMacro")

/// Marks a function as a handler that keeps the documents stored under its former names working
///: `formerly:` lists ids the handler had before (a renamed function or type, or a
/// changed `id:`), `renamed:` maps former parameter names to current ones. A document naming a former
/// id rebuilds to this handler and is written back with the current id; a value bound under a former
/// parameter name binds to the renamed parameter.
///
/// ```swift
/// enum Carbon {                                  // was `enum Carbons`
///     @handler(formerly: "Carbons.enabled", renamed: ["acct": "account"])
///     static func enabled(account: Account, limit: Int = 10) { … }
/// }
/// ```
///
/// A former id must not be another handler's id or former id (a compile error at both). The build
/// checks the module's handlers against a committed baseline (`swift package --allow-writing-to-package-directory update-handler-baseline`).
///
/// - Parameters:
///   - id: the handler's id, as in ``handler(id:)``; omitted for the default `Type.Path.name`.
///   - instance: as in ``handler(instance:)``, for instance methods.
///   - formerly: the ids the handler had before, each a plain string literal.
///   - renamed: `["former": "current"]` for each renamed parameter (internal names); several former
///     names may map to one parameter.
@attached(peer, names: overloaded)
public macro handler(
    id: String = "", instance: String = "", formerly: String..., renamed: KeyValuePairs<String, String> = [:]
) = #externalMacro(module: "HandlerKitMacros", type: "HandlerMacro")
