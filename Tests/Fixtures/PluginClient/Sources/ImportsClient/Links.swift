import Foundation
import HandlerKit

/// Parameter types from Foundation, which HandlerKit binds: the generated file compiles only if it
/// imports what this file imports.
enum Links {
    @handler
    static func open(url: URL, at date: Date? = nil, request: UUID? = nil, body: Data? = nil) {}
}
