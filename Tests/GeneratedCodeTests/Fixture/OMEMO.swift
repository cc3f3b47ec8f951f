import HandlerKit

/// The object an instance handler runs on.
struct OMEMO {
    var owner: String
}

extension OMEMO {
    @handler(instance: "account.omemo")
    func bundleFetched(account: Account, jid: String, success: Bool,
                       errorReason: String? = nil, rid: String) async throws {
        await Task.yield()
        if !success, errorReason == "fail" { throw FixtureError(reason: "fetch") }
        Recorder.shared.record("bundleFetched \(owner) \(jid) \(success) \(errorReason ?? "nil") \(rid)")
    }
}
