import Foundation
import HandlerKit

// Version 1 stores its handlers: `Mailer DIR` writes one JSON document per handler into DIR.
try HandlerRegistry.shared.register(.mailer)
let folder = URL(fileURLWithPath: CommandLine.arguments[1])
let stored: [String: Handler] = [
    "fetch": try Inbox.fetchHandler(folder: "inbox", limit: 3, invalidation: Inbox.cancelHandlerID),
    "archive": try archiveHandler(box: "old"),
]
for (name, handler) in stored {
    try handler.jsonData().write(to: folder.appending(path: name + ".json"))
    print("stored: \(handler.jsonString())")
}
