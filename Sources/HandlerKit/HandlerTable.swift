/// Every `@handler` function of one module, as the generator writes it. Register it at start-up:
///
/// ```swift
/// try HandlerRegistry.shared.register(.myModule)
/// ```
public struct HandlerTable: Sendable {
    /// The module the handlers belong to.
    public let module: String
    /// The module's handlers, each with its id, parameters and shim.
    public let handlers: [HandlerDescriptor]

    /// A table of `module`'s handlers; generated code makes one per module.
    @_spi(HandlerKitGenerated)
    public init(module: String, handlers: [HandlerDescriptor]) {
        self.module = module
        self.handlers = handlers
    }
}
