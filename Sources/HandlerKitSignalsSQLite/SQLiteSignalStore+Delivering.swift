import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalSQL

extension SQLiteSignalStore {
    // MARK: Delivering

    /// What every mark of a started attempt of run `runID` checks first: when the run's lock file is
    /// gone (its folder was removed), a change for the mark's transaction that makes and locks it
    /// again while the run's record is still there (without the record the run was taken over, and
    /// the mark fails); `nil` while the file is intact.
    func renewingLockFile(of runID: String) -> (@Sendable (Database) throws -> Void)? {
        guard let file = runLocks.file(for: runID), !file.isIntact else { return nil }
        return { db in
            guard try Self.isRecorded(runID, db) else { return }
            let renewed = try RunLockFile(runID: runID, directory: self.runsDirectory, maker: self.fileMaker)
            self.runLocks.insert(renewed, for: runID)?.abandon()
        }
    }
}
