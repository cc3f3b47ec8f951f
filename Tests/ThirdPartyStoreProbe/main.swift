// third-party-store-probe: the TestKit's probe over the JSON file store, as the author of a store
// builds it (see `SignalStoreProbe`): `--folder PATH` selects the store.
import HandlerKitSignalsTestKit
import ThirdPartyStore

await SignalStoreProbe.main(arguments: CommandLine.arguments) { opening in
    guard let folder = opening.value(of: "--folder") else {
        throw ProbeUsage(description: "--folder PATH is required: the JSON store's folder")
    }
    return try JSONFileSignalStore(folder: folder, postBeforeCommit: opening.postBeforeCommit)
}

/// A command line without the store's folder.
struct ProbeUsage: Error, CustomStringConvertible {
    var description: String
}
