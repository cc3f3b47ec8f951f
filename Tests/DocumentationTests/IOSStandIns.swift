// Stand-ins for the Apple frameworks the code of the article "Signals in an iOS app and its
// extensions" uses (UIKit, SwiftUI, UserNotifications, BackgroundTasks, FileProvider), so that its
// snippets (IOSArticleSnippets.swift) compile here. Each declares only what the snippets call, with
// the signature and actor isolation of the real API; the UserNotifications and BackgroundTasks types
// stay non-Sendable, as the real ones are. Apple platforms, where some of these frameworks exist and
// others do not (macOS has UserNotifications but not UIKit), compile neither the stand-ins nor the
// snippets.
#if !canImport(Darwin)
import Foundation

// MARK: Foundation

extension FileManager {
    /// Where the shared container of `groupIdentifier` is: here, a folder of its own under the
    /// temporary directory.
    func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        temporaryDirectory.appending(path: "app-group-containers/\(groupIdentifier)", directoryHint: .isDirectory)
    }
}

// MARK: UIKit

@MainActor
class UIResponder: NSObject {}

@MainActor
class UIScene: UIResponder {}

@MainActor
class UIWindow: UIResponder {}

@MainActor
protocol UISceneDelegate: NSObjectProtocol {
    func sceneDidEnterBackground(_ scene: UIScene)
    func sceneWillEnterForeground(_ scene: UIScene)
}

@MainActor
protocol UIWindowSceneDelegate: UISceneDelegate {
    var window: UIWindow? { get set }
}

struct UIBackgroundTaskIdentifier: Hashable, Sendable {
    static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
    var rawValue: Int
}

@MainActor
class UIApplication: UIResponder {
    static let shared = UIApplication()
    private var lastTask = 0

    func beginBackgroundTask(
        withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier {
        lastTask += 1
        return UIBackgroundTaskIdentifier(rawValue: lastTask)
    }

    func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {}
}

// MARK: SwiftUI

@MainActor
protocol View {
    associatedtype Body: View
    @ViewBuilder var body: Body { get }
}

extension Never: View {
    var body: Never { fatalError("Never has no body") }
}

struct Text: View {
    init(_ content: String) {}
    var body: Never { fatalError("a stand-in view has no body") }
}

@resultBuilder
enum ViewBuilder {
    static func buildBlock<Content: View>(_ content: Content) -> Content { content }
}

@MainActor
protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder var body: Body { get }
}

@resultBuilder
enum SceneBuilder {
    static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

struct WindowGroup<Content: View>: Scene {
    init(@ViewBuilder content: () -> Content) {}
    var body: Never { fatalError("a stand-in scene has no body") }
}

extension Never: Scene {}

struct ChangeObservingScene<Content: Scene>: Scene {
    var body: Never { fatalError("a stand-in scene has no body") }
}

extension Scene {
    func onChange<Value: Equatable>(
        of value: Value, initial: Bool = false, _ action: @escaping (_ oldValue: Value, _ newValue: Value) -> Void
    ) -> some Scene {
        ChangeObservingScene<Self>()
    }
}

@MainActor
protocol App {
    associatedtype Body: Scene
    @SceneBuilder var body: Body { get }
    init()
}

enum ScenePhase: Comparable, Hashable, Sendable {
    case background, inactive, active
}

struct EnvironmentValues {
    var scenePhase: ScenePhase = .active
}

@propertyWrapper
struct Environment<Value> {
    private let keyPath: KeyPath<EnvironmentValues, Value>

    init(_ keyPath: KeyPath<EnvironmentValues, Value>) { self.keyPath = keyPath }

    var wrappedValue: Value { EnvironmentValues()[keyPath: keyPath] }
}

// MARK: UserNotifications

class UNNotificationContent: NSObject {}

class UNNotificationRequest: NSObject {
    let content = UNNotificationContent()
}

class UNNotificationServiceExtension: NSObject {
    func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {}

    func serviceExtensionTimeWillExpire() {}
}

// MARK: BackgroundTasks

class BGTask: NSObject {
    var expirationHandler: (() -> Void)?

    func setTaskCompleted(success: Bool) {}
}

class BGTaskScheduler: NSObject {
    nonisolated(unsafe) static let shared = BGTaskScheduler()

    func register(
        forTaskWithIdentifier identifier: String, using queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool {
        true
    }
}

// MARK: FileProvider

class NSFileProviderDomain: NSObject {}

protocol NSFileProviderReplicatedExtension: NSObjectProtocol {
    init(domain: NSFileProviderDomain)
    func invalidate()
}
#endif
