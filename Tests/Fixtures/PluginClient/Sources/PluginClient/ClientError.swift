/// An error a handler throws.
struct ClientError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
