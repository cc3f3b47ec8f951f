/// An entry of a ``HandlerDictionary`` that did not decode: its key, why, and its JSON as it was read.
///
/// The JSON is kept so that saving the dictionary again writes the entry back unchanged: a handler
/// that this build of the app cannot rebuild (say, one a later version registers) is not lost.
///
/// Its description names the key and the error:
/// `handler entry 'upload-42': unknown handler id 'Uploads.finished' at 'id': …`.
public struct HandlerEntryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entry's key in the dictionary.
    public let key: String
    /// Why the entry did not decode, as `Handler(json:registry:limits:)` reports it for the entry alone.
    public let error: HandlerError
    /// The entry's JSON value, as read.
    public let json: HandlerValue

    public var description: String {
        "handler entry '\(key)': \(error)"
    }
}
