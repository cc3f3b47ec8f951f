// The Swift blocks of the article "Getting Started with HandlerKit" (HandlerKit.docc/GettingStarted.md;
// see ArticleSnippetTests). Its `Uploads` is also the one of "Storing Handlers". Nothing here runs.
import Foundation
import HandlerKit

// snippet: handlers
import HandlerKit

public enum Uploads {
    @handler
    public static func finished(fileID: String, attempts: Int = 1, account: Account) async throws {
        try await account.markUploaded(fileID, attempts: attempts)
    }

    @handler(id: "uploads.cancelled.v1")
    public static func cancelled(fileID: String, reason: String?) { /* … */ }
}
// end snippet

enum GettingStartedArticle {
    static func steps(account: Account) async throws {
        // snippet: register
        try HandlerRegistry.shared.register(.chat)
        // end snippet

        // snippet: make
        let handler = try Uploads.finishedHandler(fileID: "f-42", attempts: 3)
        // end snippet

        // snippet: make-by-id
        let sameHandler = try Handler(id: "Uploads.finished", bound: ["fileID": "f-42", "attempts": 3])
        // end snippet
        _ = sameHandler

        // snippet: store
        let json = handler.jsonData()
        // {"bound":{"attempts":3,"fileID":"f-42"},"id":"Uploads.finished","version":1}

        // Later, perhaps in another process, after registering the module's table:
        let rebuilt = try Handler(json: json)
        // end snippet

        // snippet: typed-call
        try await Uploads.callFinishedHandler(rebuilt, account: account)
        // end snippet

        // snippet: call
        try await rebuilt.call(["account": account])
        // end snippet

        // snippet: invalidate
        let upload = try Handler(id: "Uploads.finished", bound: ["fileID": "f-42"],
                                 invalidation: "uploads.cancelled.v1")
        try await upload.invalidate(["reason": "user cancelled"])
        // end snippet
    }
}
