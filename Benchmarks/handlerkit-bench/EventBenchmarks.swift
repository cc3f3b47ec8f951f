// The `event.*` figures: sending to closure and handler subscribers, against a
// lock-guarded closure array (the floor) and NotificationCenter.
import Foundation
import HandlerKit
import HandlerKitEvents

enum Feed {
    /// The handler subscriber: takes the event's `data` and one bound value.
    @handler
    static func received(data: Int, weight: Int) {
        sink &+= data &* weight
    }
}

/// Measures and prints the `event.*` figures; `callDictionary` is `call.handler_dictionary_ns` of
/// the same run, which `send_handler` is compared with.
func eventFigures(registry: HandlerRegistry, callDictionary: Double?) throws {
    // The floor: an array of 1 closure guarded by the same lock the events use, copied under the
    // lock and called.
    let guarded = Locked<[@Sendable (Int) -> Void]>([{ sink &+= $0 }])
    let floor = measure("event.baseline_closure_array_ns", 2_000_000) {
        for closure in guarded.withLock({ $0 }) { closure(42) }
    }

    let oneClosure = Event<Feed.Type, Int>("received")
    oneClosure.subscribe { sent in sink &+= sent.data }
    let sendClosure = measure("event.send_closure_ns", 2_000_000) { oneClosure.send(42) }

    let oneHandler = Event<Feed.Type, Int>("received")
    try oneHandler.subscribe(Feed.receivedHandler(weight: 3, registry: registry))
    let sendHandler = measure("event.send_handler_ns", 1_000_000) { oneHandler.send(42) }

    let tenClosures = Event<Feed.Type, Int>("received")
    for _ in 0..<10 { tenClosures.subscribe { sent in sink &+= sent.data } }
    let sendTen = measure("event.send_closure_x10_ns", 500_000) { tenClosures.send(42) }

    let center = NotificationCenter()
    let name = Notification.Name("received")
    let observer = center.addObserver(forName: name, object: nil, queue: nil) { notification in
        sink &+= notification.userInfo?["data"] as? Int ?? 0
    }
    let post = measure("event.notificationcenter_post_ns", 200_000) {
        center.post(name: name, object: nil, userInfo: ["data": 42])
    }
    center.removeObserver(observer)

    report("event.baseline_closure_array_ns", floor)
    report("event.send_closure_ns", sendClosure)
    report("event.send_handler_ns", sendHandler)
    report("event.send_closure_x10_ns", sendTen)
    report("event.notificationcenter_post_ns", post)
    if let sendClosure, let floor {
        report("ratio.event_send_closure_over_floor", sendClosure / floor, "x")  // target ≤ 3
    }
    if let sendClosure, let post {
        report("ratio.event_notificationcenter_over_send_closure", post / sendClosure, "x")  // target ≥ 10
    }
    if let sendTen, let sendClosure {
        report("ratio.event_send_closure_x10_over_x1", sendTen / sendClosure, "x")  // linear: about 10 or less
    }
    if let sendHandler, let callDictionary {
        report("event.send_handler_minus_call_dictionary_ns", sendHandler - callDictionary)  // target ≤ 100
    }
}
