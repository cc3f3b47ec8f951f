// The Swift blocks of the article "Storing Handlers" (HandlerKit.docc/StoringHandlers.md; see
// ArticleSnippetTests). `Uploads` is the one of "Getting Started with HandlerKit". Nothing here runs.
import Foundation
import HandlerKit
import Logging

enum StoringHandlersArticle {
    static func pendingUploads(pendingURL: URL, logger: Logger, account: Account) async throws {
        // snippet: read
        var pending = try HandlerDictionary(json: Data(contentsOf: pendingURL))
        for failure in pending.failures {
            logger.warning("\(failure)")
            // handler entry 'f-17': unknown handler id 'Uploads.retried' at 'id': …
        }
        for handler in pending.handlers.values {
            try await handler.call(["account": account])
        }
        // end snippet

        // snippet: write
        pending.handlers["f-43"] = try Uploads.finishedHandler(fileID: "f-43")
        pending.failures.removeAll { $0.error == .unknownHandler(id: "Uploads.retried", path: "id") }
        try pending.jsonData().write(to: pendingURL, options: .atomic)
        // end snippet
    }
}
