// The code of the article "Signals in an iOS app and its extensions" (HandlerKitSignals.docc/
// SignalsOnIOS.md), compiled: each region between `// snippet: <name>` and `// end snippet` is one of
// the article's code blocks, character for character, in the article's order
// (ArticleSnippetTests checks it). The Apple frameworks are stand-ins here (IOSStandIns.swift).
#if !canImport(Darwin)
import Foundation
import HandlerKitSignals
import HandlerKitSignalsSQLite

// snippet: store
/// The components of this app: one per kind of process.
enum SignalComponent {
    static let app = "app"
    static let notificationService = "notification-service"
    static let fileProvider = "file-provider"
}

enum SharedStore {
    static let appGroup = "group.com.example.mail"

    /// The store every process of the app opens, in the container of their App Group.
    static func open() throws -> SQLiteSignalStore {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup)
        else { throw SharedStoreError.noContainer(appGroup: appGroup) }
        let folder = container.appending(path: "Signals", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try SQLiteSignalStore(path: folder.appending(path: "signals.sqlite").path(percentEncoded: false))
    }
}

enum SharedStoreError: Error {
    /// The target is not in the App Group (its entitlements do not name it).
    case noContainer(appGroup: String)
}
// end snippet

// snippet: process-signals
/// The signal center of this process: started by the first `activate()`, then suspended and
/// resumed as iOS runs the process. Each step starts when the one asked for before it has ended, so
/// a suspension never overtakes the resumption before it.
@MainActor
final class ProcessSignals {
    let component: String
    private(set) var center: SignalCenter?
    private var lastStep: Task<Void, Never>?

    nonisolated init(component: String) { self.component = component }

    /// Starts the center, or resumes it; returns it running (`nil` if it could not be started).
    @discardableResult
    func activate() async -> SignalCenter? {
        await step { [self] in
            do {
                if let center {
                    _ = try await center.resume()
                } else {
                    center = try await SignalCenter.start(component: component, store: try SharedStore.open())
                }
            } catch {
                print("signals: \(component) could not start or resume: \(error)")
            }
        }
        return center
    }

    /// Suspends the center: from its return until the next `activate()`, this process holds no lock on
    /// the container's files.
    func suspend(finishingWithin grace: Duration) async {
        await step { [self] in
            guard let center else { return }
            do {
                _ = try await center.suspend(finishingWithin: grace)
            } catch {
                print("signals: \(component) could not suspend: \(error)")
            }
        }
    }

    private func step(_ body: @escaping @MainActor () async -> Void) async {
        let previous = lastStep
        let current = Task {
            await previous?.value
            await body()
        }
        lastStep = current
        await current.value
    }
}
// end snippet

// snippet: app-signals
@MainActor
enum AppSignals {
    static let signals = ProcessSignals(component: SignalComponent.app)
    private static var backgroundTask = UIBackgroundTaskIdentifier.invalid

    /// The app goes to the background: asks iOS for the time to suspend, suspends, gives the time back.
    static func enterBackground() {
        if backgroundTask == .invalid {
            backgroundTask = UIApplication.shared.beginBackgroundTask(withName: "Suspend signals") {
                endBackgroundTask()
            }
        }
        Task {
            await signals.suspend(finishingWithin: .seconds(5))
            endBackgroundTask()
        }
    }

    /// The app comes back to the foreground.
    static func enterForeground() {
        Task { await signals.activate() }
    }

    private static func endBackgroundTask() {
        guard backgroundTask != .invalid else { return }
        UIApplication.shared.endBackgroundTask(backgroundTask)
        backgroundTask = .invalid
    }
}
// end snippet

// snippet: scene-delegate
final class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?

    func sceneDidEnterBackground(_ scene: UIScene) {
        AppSignals.enterBackground()
    }

    func sceneWillEnterForeground(_ scene: UIScene) {
        AppSignals.enterForeground()
    }
}
// end snippet

struct InboxView: View {
    var body: some View { Text("Inbox") }
}

// snippet: swiftui
struct MailApp: App {
    @Environment(\.scenePhase) private var scenePhase

    init() {
        Task { await AppSignals.signals.activate() }
    }

    var body: some Scene {
        WindowGroup { InboxView() }
            .onChange(of: scenePhase) { oldPhase, newPhase in
                if newPhase == .background {
                    AppSignals.enterBackground()
                } else if oldPhase == .background {
                    AppSignals.enterForeground()
                }
            }
    }
}
// end snippet

// snippet: notification-service
final class NotificationService: UNNotificationServiceExtension {
    static let signals = ProcessSignals(component: SignalComponent.notificationService)
    private let pending = PendingContent()

    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        // UserNotifications predates Sendable: the request and the handler go to this one task.
        nonisolated(unsafe) let request = request
        nonisolated(unsafe) let contentHandler = contentHandler
        Task { @MainActor [pending] in
            pending.show = { contentHandler(request.content) }
            if let center = await Self.signals.activate() {
                _ = try? await center.deliverDue()
            }
            await Self.signals.suspend(finishingWithin: .seconds(2))
            pending.showOnce()
        }
    }

    override func serviceExtensionTimeWillExpire() {
        Task { @MainActor [pending] in
            await Self.signals.suspend(finishingWithin: .milliseconds(500))
            pending.showOnce()
        }
    }
}

/// What shows the notification: called once, after the center is suspended.
@MainActor
final class PendingContent {
    var show: (() -> Void)?

    nonisolated init() {}

    func showOnce() {
        show?()
        show = nil
    }
}
// end snippet

// snippet: background-task
/// Called in `application(_:didFinishLaunchingWithOptions:)`, before it returns.
func registerBackgroundRefresh() {
    _ = BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.mail.refresh", using: nil) { task in
        // BackgroundTasks predates Sendable: the task goes to the tasks below only.
        nonisolated(unsafe) let task = task
        task.expirationHandler = {
            Task { await AppSignals.signals.suspend(finishingWithin: .milliseconds(500)) }
        }
        Task {
            let delivered = try? await AppSignals.signals.activate()?.deliverDue()
            await AppSignals.signals.suspend(finishingWithin: .seconds(5))
            task.setTaskCompleted(success: delivered != nil)
        }
    }
}
// end snippet

// snippet: file-provider
final class FileProviderExtension: NSObject, NSFileProviderReplicatedExtension {
    static let signals = ProcessSignals(component: SignalComponent.fileProvider)

    init(domain: NSFileProviderDomain) {
        super.init()
    }

    /// Called by each operation when its work is done, before its completion handler: the result
    /// goes to the app's consumer, and the process holds no lock when iOS suspends it.
    func report(uploadOf file: String, to signal: SignalID, remotePath: String?) async {
        if let center = await Self.signals.activate() {
            do {
                _ = try await center.post(
                    signal, payload: ["success": remotePath != nil, "remotePath": remotePath, "file": file])
            } catch {
                print("signals: could not report the upload of \(file): \(error)")
            }
        }
        await Self.signals.suspend(finishingWithin: .seconds(2))
    }

    func invalidate() {
        let signals = Self.signals
        Task { await signals.suspend(finishingWithin: .seconds(1)) }
    }
}
// end snippet
#endif
