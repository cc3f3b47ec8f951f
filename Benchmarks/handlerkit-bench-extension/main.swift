// handlerkit-bench-extension: the processes that `handlerkit-bench extension.` times, in an executable
// of their own that links what an app extension using signals links (HandlerKit, the signals core,
// the SQLite store and GRDB) and nothing else, as an extension's binary would: the benchmark
// executable also holds every other benchmark and the PostgreSQL driver, whose code would sit between
// the pages these processes run.
//
//     handlerkit-bench-extension --setup DB     registers a durable consumer, posts 100 revisions for
//                                               it and exits without stopping: a run that is gone
//     handlerkit-bench-extension --extension DB starts a center (taking that run over), delivers,
//                                               suspends, and prints its first handler's time and
//                                               its memory
//     handlerkit-bench-extension --baseline DB  opens the database with plain GRDB, reads one row,
//                                               and prints the same
import Foundation
import GRDB
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 3, let mode = ExtensionProcess.Mode(rawValue: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: handlerkit-bench-extension --setup|--extension|--baseline DB\n".utf8))
    exit(64)
}
do {
    try await ExtensionProcess.run(mode, database: arguments[2])
    exit(0)
} catch {
    FileHandle.standardError.write(Data("handlerkit-bench-extension: \(error)\n".utf8))
    exit(1)
}
