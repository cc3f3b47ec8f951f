/// Where the tests inject faults (e.g. kill the process there). Not public: only this package's
/// tests and probe set the stores' and the center's fault hooks.
package enum SignalFaultPoint: String, Sendable {
    /// Inside a post's transaction, after its writes and before its commit.
    case postBeforeCommit
    /// After a delivery was claimed, before its handler runs.
    case afterClaim
    /// After the handler returned, before the delivery is completed.
    case beforeCompletion
}
