import HandlerKit

enum Mailbox {
    @handler(formerly: "Inbox.fetch", renamed: ["folder": "box"])
    static func load(box: String, limit: Int, unread: Bool = false) {
        print("ran: Mailbox.load box=\(box) limit=\(limit) unread=\(unread)")
    }

    @handler(formerly: "Inbox.cancel", renamed: ["folder": "box"])
    static func cancel(box: String) {
        print("ran: Mailbox.cancel box=\(box)")
    }
}

@handler
func archive(box: String) {
    print("ran: archive box=\(box)")
}
