import CHandlerKitDarwinShim
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The data protection class of the files an ``SQLiteSignalStore`` makes, on Apple platforms: when
/// the system lets processes open them. Linux has no data protection: the setting changes nothing
/// there.
///
/// A process that runs while the device is locked (a Notification Service Extension, a background
/// task) opens the store only if its files are readable then: ``completeUntilFirstUserAuthentication``
/// (the default) or ``none``.
public enum FileProtection: Sendable, Hashable {
    /// Readable only while the device is unlocked (`NSFileProtectionComplete`). A process that opens
    /// the store while the device is locked fails with `SignalError.storeUnavailable` naming the file.
    case complete
    /// Readable while a process has the file open, even after the device locks; a file that is not
    /// open cannot be opened again until the device is unlocked (`NSFileProtectionCompleteUnlessOpen`).
    case completeUnlessOpen
    /// Readable from the first unlock after the device starts
    /// (`NSFileProtectionCompleteUntilFirstUserAuthentication`): what processes that run while the
    /// device is locked need.
    case completeUntilFirstUserAuthentication
    /// Always readable (`NSFileProtectionNone`).
    case none

    /// The class's value for `hk_set_protection_class`.
    var protectionClass: Int32 {
        switch self {
        case .complete: Int32(HK_PROTECTION_COMPLETE)
        case .completeUnlessOpen: Int32(HK_PROTECTION_COMPLETE_UNLESS_OPEN)
        case .completeUntilFirstUserAuthentication: Int32(HK_PROTECTION_UNTIL_FIRST_AUTHENTICATION)
        case .none: Int32(HK_PROTECTION_NONE)
        }
    }

    /// The class of `protectionClass`, `nil` for a value that is none of them.
    init?(protectionClass: Int32) {
        guard let protection = Self.all.first(where: { $0.protectionClass == protectionClass }) else { return nil }
        self = protection
    }

    private static let all: [FileProtection] = [
        .complete, .completeUnlessOpen, .completeUntilFirstUserAuthentication, .none,
    ]
}
