import HandlerKit

/// A handler the generator must refuse: private functions cannot be called from the generated file.
enum Misuse {
    @handler
    private static func hidden(value: Int) {}
}
