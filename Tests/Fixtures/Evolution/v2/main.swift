import Foundation
import HandlerKit

// Version 2 reads what version 1 stored: `Mailer DIR` rebuilds, calls and invalidates each document in
// DIR and prints it as it would store it now.
try HandlerRegistry.shared.register(.mailer)
let folder = URL(fileURLWithPath: CommandLine.arguments[1])
let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
for file in files {
    let handler = try Handler(json: Data(contentsOf: folder.appending(path: file)))
    try handler.callSynchronously()
    print("saved: \(handler.jsonString())")
    if handler.invalidationID != nil { try handler.invalidateSynchronously() }
}
print("rebuilt: \(files.count) documents")
