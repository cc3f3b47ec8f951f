// Compiled with the package trait `SignalsDashboard` only (its dependency Hummingbird is fetched and
// built only then); without it, the tool says how to build it.
#if SignalsDashboard
import Foundation
import HandlerKitSignals
import Hummingbird
import Logging
import SignalStoreOpening

/// `handlerkit-dashboard`: a web dashboard of a signal store (an SQLite file or a PostgreSQL URL) on
/// a local port. Pages read the store opened read-only; requeue and discard, enabled by an action
/// token, open it for changing.
@main
enum DashboardTool {
    static func main() async {
        let options: DashboardOptions
        do {
            guard
                let parsed = try DashboardOptions(
                    arguments: Array(CommandLine.arguments.dropFirst()),
                    environment: ProcessInfo.processInfo.environment)
            else {
                print(DashboardOptions.usage)
                return
            }
            options = parsed
        } catch {
            FileHandle.standardError.write(Data("handlerkit-dashboard: \(error)\n\n\(DashboardOptions.usage)\n".utf8))
            exit(64)
        }
        do {
            try await serve(options)
        } catch {
            FileHandle.standardError.write(Data("handlerkit-dashboard: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Opens the store read-only, checks that it is a signal store, and serves the dashboard until
    /// SIGINT or SIGTERM.
    static func serve(_ options: DashboardOptions) async throws {
        let location = StoreLocation(options.store, tool: "handlerkit-dashboard", trait: "SignalsDashboard")
        let reader = try location.openForReading()
        _ = try await reader.store.statistics()
        let dashboard = Dashboard(
            location: location, reader: reader,
            requestGuard: RequestGuard(actionToken: options.token, loopbackOnly: options.isLoopback))
        var logger = Logger(label: "handlerkit-dashboard")
        logger.logLevel = .warning
        let application = Application(
            responder: CallbackResponder { (request: Request, _: BasicRequestContext) in
                await dashboard.respond(to: request)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(options.host, port: options.port), serverName: "handlerkit-dashboard"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let host = options.host.contains(":") ? "[\(options.host)]" : options.host
                let actions =
                    options.token == nil
                    ? "actions disabled: start with --token TOKEN (or \(DashboardOptions.tokenVariable)) to enable them"
                    : "actions enabled: requeue and discard ask for the token"
                FileHandle.standardOutput.write(
                    Data(
                        "handlerkit-dashboard: serving \(reader.store.location) on http://\(host):\(port)/\n\(actions)\n"
                            .utf8)
                )
            },
            logger: logger)
        try await application.runService()
    }
}
#else
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Built without the package trait `SignalsDashboard`: says how to build the dashboard.
@main
enum DashboardTool {
    static func main() {
        print(
            "handlerkit-dashboard was built without HandlerKit's package trait SignalsDashboard: build it with "
                + "`swift build --traits SignalsDashboard --product handlerkit-dashboard`")
        exit(64)
    }
}
#endif
