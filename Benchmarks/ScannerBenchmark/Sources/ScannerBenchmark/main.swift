// Measures HandlerScanner's full lexical pass in MB/s on real Swift source and compares it, in the same
// run and on the same files, with SwiftParser from swift-syntax 603.0.1. The scanner has no prefilter:
// every byte of every file is validated and lexed. Then the same comparison as whole processes, as users
// run them: `handlergen scan --format json` against `swiftparser-scan` (this package) on the corpus folders,
// best of 3 each. Both executables are taken from the folder of this one (build them first, see
// Package.swift); `process.*` lines are skipped with a note when they are not there.
//
// The corpus is exported from the local mirror with `git archive` into a temporary folder (override the
// mirror with SWIFT_PACKAGES_MIRROR). Output lines are `name: value unit`.
import Foundation
import HandlerScanner
import SwiftParser
import SwiftSyntax

struct CorpusSource {
    var repository: String
    var tag: String
}

let mirror = ProcessInfo.processInfo.environment["SWIFT_PACKAGES_MIRROR"] ?? "/opt/swift-packages"
let sources = [
    CorpusSource(repository: "apple/swift-nio", tag: "2.101.3"),
    CorpusSource(repository: "vapor/vapor", tag: "4.122.3"),
    CorpusSource(repository: "swiftlang/swift-syntax", tag: "603.0.1"),
    CorpusSource(repository: "groue/GRDB.swift", tag: "7.10.0"),
]

enum BenchmarkError: Error, CustomStringConvertible {
    case exportFailed(String)
    case processFailed(String)
    var description: String {
        switch self {
        case .exportFailed(let message): return "corpus export failed: \(message)"
        case .processFailed(let message): return "measured process failed: \(message)"
        }
    }
}

@MainActor func run(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchmarkError.exportFailed(arguments.joined(separator: " "))
    }
}

@MainActor func exportCorpus(into directory: URL) throws {
    for source in sources {
        let target = directory.appendingPathComponent(source.repository.replacingOccurrences(of: "/", with: "+"))
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let repository = "\(mirror)/\(source.repository).git"
        let archive = target.appendingPathComponent("archive.tar")
        try run(["git", "-C", repository, "archive", "--format=tar", "-o", archive.path, source.tag])
        try run(["tar", "-xf", archive.path, "-C", target.path])
        try FileManager.default.removeItem(at: archive)
    }
}

@MainActor func swiftFiles(in directory: URL) -> [URL] {
    guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
        return []
    }
    var files: [URL] = []
    for case let url as URL in enumerator where url.pathExtension == "swift" { files.append(url) }
    return files.sorted { $0.path < $1.path }
}

@MainActor func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

@MainActor func seconds(_ duration: Duration) -> Double {
    let parts = duration.components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
}

@MainActor func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("scanner-benchmark-\(getpid())")
defer { try? FileManager.default.removeItem(at: temporary) }
do {
    try exportCorpus(into: temporary)
} catch {
    print("error: \(error)")
    exit(1)
}

let files = swiftFiles(in: temporary)
var contents: [[UInt8]] = []
var texts: [String] = []
var names: [String] = []
for file in files {
    guard let data = FileManager.default.contents(atPath: file.path) else { continue }
    contents.append([UInt8](data))
    texts.append(String(decoding: data, as: UTF8.self))
    names.append(String(file.path.dropFirst(temporary.path.count + 1)))
}
let totalBytes = contents.reduce(0) { $0 + $1.count }
let megabytes = Double(totalBytes) / 1_000_000
print("corpus.files: \(contents.count) files")
print("corpus.size_mb: \(format(megabytes, 2)) MB")

let clock = ContinuousClock()

/// Wall-clock and this thread's CPU time of one pass. The machine may be shared: CPU time is what the
/// pass itself cost, wall-clock time includes waiting for a core.
struct Sample {
    var wall: Double
    var cpu: Double
}

@MainActor func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

@MainActor func measure(_ body: () -> Void) -> Sample {
    let cpuStart = threadCPUSeconds()
    let elapsed = clock.measure(body)
    return Sample(wall: seconds(elapsed), cpu: threadCPUSeconds() - cpuStart)
}

// One pass of HandlerScanner: the product's scan(bytes:file:) on every file (UTF-8 validation + full lex,
// no prefilter).
struct ScannerPass {
    var sample: Sample
    var handlers: Int
    var errors: Int
}

@MainActor func scannerPass(_ contents: [[UInt8]], _ names: [String]) -> ScannerPass {
    var handlers = 0
    var errors = 0
    let sample = measure {
        for index in contents.indices {
            let result = SourceScanner.scan(bytes: contents[index], file: names[index])
            handlers += result.handlers.count
            errors += result.diagnostics.count { $0.severity == .error }
        }
    }
    return ScannerPass(sample: sample, handlers: handlers, errors: errors)
}

// One pass of SwiftParser on the same files.
@MainActor func parserPass(_ texts: [String]) -> (sample: Sample, statements: Int) {
    var statements = 0
    let sample = measure {
        for text in texts {
            let tree = Parser.parse(source: text)
            statements += tree.statements.count
        }
    }
    return (sample, statements)
}

// A naive byte search for "func", as a floor for "touches every byte once".
@MainActor func searchPass(_ contents: [[UInt8]]) -> (sample: Sample, found: Int) {
    let needle = Array("func".utf8)
    var found = 0
    let sample = measure {
        for bytes in contents {
            bytes.withUnsafeBufferPointer { buffer in
                var index = 0
                let limit = buffer.count - needle.count
                while index <= limit {
                    if buffer[index] == needle[0], buffer[index + 1] == needle[1], buffer[index + 2] == needle[2],
                        buffer[index + 3] == needle[3]
                    {
                        found += 1
                    }
                    index += 1
                }
            }
        }
    }
    return (sample, found)
}

// Warm up, then interleave the rounds so that load from other processes hits both alike.
_ = scannerPass(contents, names)
_ = parserPass(texts)
var scannerSamples: [Sample] = []
var parserSamples: [Sample] = []
var searchSamples: [Sample] = []
var handlerCount = 0
var errorCount = 0
var statementCount = 0
var funcCount = 0
for _ in 0..<3 {
    for _ in 0..<3 {
        let pass = scannerPass(contents, names)
        scannerSamples.append(pass.sample)
        handlerCount = pass.handlers
        errorCount = pass.errors
    }
    let parsed = parserPass(texts)
    parserSamples.append(parsed.sample)
    statementCount = parsed.statements
    let searched = searchPass(contents)
    searchSamples.append(searched.sample)
    funcCount = searched.found
}

let scannerWall = megabytes / median(scannerSamples.map(\.wall))
let scannerCPU = megabytes / median(scannerSamples.map(\.cpu))
let parserWall = megabytes / median(parserSamples.map(\.wall))
let parserCPU = megabytes / median(parserSamples.map(\.cpu))
let searchWall = megabytes / median(searchSamples.map(\.wall))

print("scanner.throughput_mb_s: \(format(scannerWall)) MB/s")
print("scanner.cpu_throughput_mb_s: \(format(scannerCPU)) MB/s")
print("scanner.handlers_found: \(handlerCount) handlers")
print("scanner.error_diagnostics: \(errorCount) errors")
print("swiftparser.throughput_mb_s: \(format(parserWall)) MB/s")
print("swiftparser.cpu_throughput_mb_s: \(format(parserCPU)) MB/s")
print("swiftparser.top_level_statements: \(statementCount) statements")
print("baseline.func_search_mb_s: \(format(searchWall)) MB/s")
print("baseline.func_occurrences: \(funcCount) matches")
print("scanner.speedup_x: \(format(scannerWall / parserWall)) x")
print("scanner.cpu_speedup_x: \(format(scannerCPU / parserCPU)) x")

// Whole processes: start, walk the folders, read, scan or parse, print. Per corpus and for all four at
// once, best of 3 each, interleaved, in wall-clock time and in CPU time (user + system of the process and
// its threads, so a second core does not count as speed). Also `handlergen generate` over the same files
// named one by one, as the build plugin runs it: it must cost what `scan` costs.
let executableFolder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent()
let handlergen = executableFolder.appendingPathComponent("handlergen")
let swiftParserScan = executableFolder.appendingPathComponent("swiftparser-scan")
let corpusNames = sources.map { $0.repository.replacingOccurrences(of: "/", with: "+") }
let corpusFolders = corpusNames.map { temporary.appendingPathComponent($0).path }

/// Wall-clock and CPU time (user + system, from the kernel's accounting of the child, `wait4`) of one
/// run, started with `posix_spawn` and waited for with `wait4`. Not Foundation's `Process`: here, waiting
/// with it made every `handlergen scan` take about 51 ms of wall-clock time whatever the corpus (55 ms for
/// vapor's 12 ms of CPU), which swamps processes that run 10-30 ms.
@MainActor func runProcess(_ executable: URL, _ arguments: [String]) throws -> Sample {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let start = clock.now
    let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
    guard spawned == 0 else {
        throw BenchmarkError.processFailed(
            "\(executable.lastPathComponent) could not start: \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
        guard errno == EINTR else { throw BenchmarkError.processFailed("wait4: \(String(cString: strerror(errno)))") }
    }
    let wall = seconds(clock.now - start)
    // Exited normally (low 7 bits 0) with status 0.
    guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
        throw BenchmarkError.processFailed("\(executable.lastPathComponent) ended with wait status \(status)")
    }
    let cpu =
        Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
    return Sample(wall: wall, cpu: cpu)
}

/// The best of `runs`: the least wall-clock time and the least CPU time (each its own minimum).
@MainActor func best(_ runs: [Sample]) -> Sample {
    Sample(wall: runs.map(\.wall).min() ?? 0, cpu: runs.map(\.cpu).min() ?? 0)
}

@MainActor func loadAverage() -> String {
    var loads = [Double](repeating: 0, count: 3)
    guard getloadavg(&loads, 3) == 3 else { return "unknown" }
    return loads.map { format($0, 2) }.joined(separator: " ")
}

if FileManager.default.isExecutableFile(atPath: handlergen.path),
    FileManager.default.isExecutableFile(atPath: swiftParserScan.path)
{
    do {
        print("process.load_average_before: \(loadAverage()) (1, 5, 15 min)")
        let groups =
            zip(corpusNames, corpusFolders).map { (name: $0.0, folders: [$0.1]) } + [
                (name: "all", folders: corpusFolders)
            ]
        for group in groups {
            var scanRuns: [Sample] = []
            var parseRuns: [Sample] = []
            for _ in 0..<3 {
                scanRuns.append(try runProcess(handlergen, ["scan", "--format", "json"] + group.folders))
                parseRuns.append(try runProcess(swiftParserScan, group.folders))
            }
            let scan = best(scanRuns)
            let parse = best(parseRuns)
            // The four corpora together keep the names the figures had before per-corpus lines existed.
            let prefix = group.name == "all" ? "process" : "process.\(group.name)"
            print("\(prefix).handlergen_scan_s: \(format(scan.wall, 3)) s")
            print("\(prefix).handlergen_scan_cpu_s: \(format(scan.cpu, 3)) s")
            print("\(prefix).swiftparser_s: \(format(parse.wall, 3)) s")
            print("\(prefix).swiftparser_cpu_s: \(format(parse.cpu, 3)) s")
            print("\(prefix).speedup_x: \(format(parse.wall / scan.wall)) x")
            print("\(prefix).cpu_speedup_x: \(format(parse.cpu / scan.cpu)) x")
        }
        // The files `scan` reads in those folders: regular files, hidden names skipped.
        let fileList = swiftFiles(in: temporary).map(\.path).filter { path in
            var isDirectory: ObjCBool = false
            let inside = path.dropFirst(temporary.path.count).split(separator: "/")
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && !inside.contains { $0.hasPrefix(".") }
        }
        let output = temporary.appendingPathComponent("Generated.swift").path
        var generateRuns: [Sample] = []
        var scanRuns: [Sample] = []
        for _ in 0..<3 {
            generateRuns.append(
                try runProcess(handlergen, ["generate", "--module", "Corpus", "--output", output] + fileList))
            scanRuns.append(try runProcess(handlergen, ["scan", "--format", "json"] + corpusFolders))
        }
        let generate = best(generateRuns)
        let scan = best(scanRuns)
        print("process.handlergen_generate_files_s: \(format(generate.wall, 3)) s")
        print("process.handlergen_generate_files_cpu_s: \(format(generate.cpu, 3)) s")
        print("process.generate_over_scan_cpu_x: \(format(generate.cpu / scan.cpu, 2)) x")
        print("process.load_average_after: \(loadAverage()) (1, 5, 15 min)")
    } catch {
        print("error: \(error)")
        exit(1)
    }
} else {
    print(
        "note: process.* skipped: build handlergen and swiftparser-scan first (see Package.swift); looked in \(executableFolder.path)"
    )
}
