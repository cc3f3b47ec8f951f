// A target that uses @handler but forgot `plugins: [.plugin(name: "HandlerKitPlugin", …)]`.
import HandlerKit

enum Uploads {
    @handler
    static func finished(fileID: Int) {}
}
