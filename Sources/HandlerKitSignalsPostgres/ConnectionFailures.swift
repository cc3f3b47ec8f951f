// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import PostgresNIO

extension PostgresConnections {
    /// What a TCP connection that could not be made means, in words an operator reads (what the
    /// system said, the host that cannot be resolved, how long it waited), without SwiftNIO's type
    /// names; `nil` for an error that is no such failure.
    static func describeConnectionFailure(_ error: any Error) -> String? {
        switch error {
        case let error as NIOConnectionError:
            if let lookup = error.dnsAError ?? error.dnsAAAAError {
                return describeConnectionFailure(lookup) ?? "the host name \(error.host) cannot be resolved"
            }
            var causes: [String] = []
            for failure in error.connectionErrors {
                let cause = describeConnectionFailure(failure.error) ?? "\(failure.error)"
                if !causes.contains(cause) { causes.append(cause) }
            }
            return causes.isEmpty ? "no address of \(error.host) could be connected to" : causes.joined(separator: "; ")
        case let error as SocketAddressError.UnknownHost:
            return "the host name \(error.host) cannot be resolved (\(error.errorDescription))"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode))
        case ChannelError.connectTimeout(let waited):
            return "no connection within \(format(.nanoseconds(waited.nanoseconds)))"
        default:
            return nil
        }
    }
}
#endif
