import HandlerKit

enum Inbox {
    @handler
    static func fetch(folder: String, limit: Int) {
        print("ran: Inbox.fetch folder=\(folder) limit=\(limit)")
    }

    @handler
    static func cancel(folder: String) {
        print("ran: Inbox.cancel folder=\(folder)")
    }
}

@handler
func archive(box: String) {
    print("ran: archive box=\(box)")
}
