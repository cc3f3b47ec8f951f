/// How a store's schema is brought to the version its code writes, written once for every store:
/// `steps[n]` migrates version n to n + 1, so the version this code writes is `steps.count`; a store
/// of a newer version is refused (``SignalError/newerSchema(path:found:supported:)``), untouched.
///
/// A store supplies its steps (its SQL), how it reads and records the version number, and the
/// transaction (and lock) that makes processes opening the store at the same time migrate it once.
package struct SchemaMigration<Step: Sendable>: Sendable {
    /// `steps[n]` migrates version n to n + 1.
    package let steps: [Step]

    package init(steps: [Step]) {
        self.steps = steps
    }

    /// The version this code writes and reads.
    package var version: Int { steps.count }

    /// Refuses a store of a version newer than ``version``, found at `location`.
    package func refuseNewer(found: Int, at location: String) throws(SignalError) {
        if found > version { throw .newerSchema(path: location, found: found, supported: version) }
    }

    /// The steps that bring a store of version `found` to ``version`` (none when it is there).
    ///
    /// - Throws: ``SignalError/newerSchema(path:found:supported:)`` for a newer store.
    package func steps(from found: Int, at location: String) throws(SignalError) -> ArraySlice<Step> {
        try refuseNewer(found: found, at: location)
        return steps.dropFirst(max(0, found))
    }

    /// Reads the version (`read`), refuses a newer store, applies each step from it on in order
    /// (`apply`) and records ``version`` (`record`), in the caller's transaction. Returns the version
    /// found, or `nil` when the store was at ``version`` already (nothing applied or recorded).
    package func migrate(
        at location: String, read: () throws -> Int, apply: (Step) throws -> Void, record: (Int) throws -> Void
    ) throws -> Int? {
        let found = try read()
        let pending = try steps(from: found, at: location)
        if pending.isEmpty { return nil }
        for step in pending { try apply(step) }
        try record(version)
        return found
    }

    /// ``migrate(at:read:apply:record:)`` for a store whose statements are asynchronous.
    package func migrate(
        at location: String, read: () async throws -> Int, apply: (Step) async throws -> Void,
        record: (Int) async throws -> Void
    ) async throws -> Int? {
        let found = try await read()
        let pending = try steps(from: found, at: location)
        if pending.isEmpty { return nil }
        for step in pending { try await apply(step) }
        try await record(version)
        return found
    }
}
