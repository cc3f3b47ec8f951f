import ChatKit
import ClientCTypes
import HandlerKit

/// C types of the ClientCTypes target as bound parameters: the plugin passes the target's header
/// folder to handlergen, which generates their Codable conformances.
enum Points {
    @handler
    static func moved(point: HKPoint, direction: HKDirection) {
        Journal.shared.record("Points.moved x=\(point.x) y=\(point.y) tag=\(point.tag) direction=\(direction.rawValue)")
    }
}
