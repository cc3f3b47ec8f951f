/// Every `@handler` function of one module, as the generator writes it. Register it at start-up:
///
/// ```swift
/// try HandlerRegistry.shared.register(.myModule)
/// ```
public struct HandlerTable: Sendable {
    /// The module the handlers belong to.
    public let module: String
    public let handlers: [HandlerDescriptor]

    public init(module: String, handlers: [HandlerDescriptor]) {
        self.module = module
        self.handlers = handlers
    }
}
