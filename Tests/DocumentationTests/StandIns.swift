// Stand-ins for the app types that the documents' snippets use (Snippets/), each with only what the
// snippets call. Nothing here runs.
import Foundation
import HandlerKit

/// A user's account.
public struct Account: Codable, Sendable {
    public var id: String

    /// The account's encryption, as README.md's instance handler finds it.
    var omemo: OMEMO { OMEMO() }

    /// Records an upload as finished.
    public func markUploaded(_ fileID: String, attempts: Int) async throws {}
}

/// An XMPP account's encryption, as README.md's handler finds it: `account.omemo`.
struct OMEMO {}

extension HandlerTable {
    /// The module of the documents' examples is called Chat.
    static var chat: HandlerTable { .documentationTests }
}
