import Foundation
import Testing

/// How `handlergen` reads its command line (parsed by hand, see Sources/handlergen/CommandLineArguments.swift):
/// the accepted forms, help, and usage errors with exit status 64.
extension CommandLineTests {
    /// A wrong command line and a part of the one-line message it must print.
    struct Misuse: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let misuses: [Misuse] = [
        Misuse(arguments: ["bogus"], message: "unknown subcommand 'bogus'"),
        Misuse(arguments: ["--bogus"], message: "unknown option '--bogus'"),
        Misuse(arguments: ["help", "bogus"], message: "unknown subcommand 'bogus'"),
        Misuse(
            arguments: ["generate", "--module", "App", "--output", "G.swift", "--bogus", "."],
            message: "unknown option '--bogus'"),
        Misuse(arguments: ["scan", "-x", "."], message: "unknown option '-x'"),
        Misuse(
            arguments: ["generate", "--output", "G.swift", "--module"], message: "missing value for --module <module>"),
        Misuse(
            arguments: ["generate", "--module", "--output", "G.swift", "."],
            message: "missing value for --module <module>"),
        Misuse(
            arguments: ["generate", "--module=", "--output", "G.swift", "."],
            message: "missing value for --module <module>"),
        Misuse(
            arguments: ["generate", "--output", "G.swift", "."], message: "missing required option --module <module>"),
        Misuse(arguments: ["generate", "--module", "App", "."], message: "missing required option --output <file>"),
        Misuse(
            arguments: ["generate", "--module", "App", "--output", "G.swift"],
            message: "missing <sources>: give at least one source file or directory"),
        Misuse(arguments: ["review", "--module", "App"], message: "missing <sources>"),
        Misuse(
            arguments: ["scan", "--format", "json"],
            message: "missing <paths>: give at least one file or directory to scan"),
        Misuse(arguments: ["scan", "--format", "xml", "."], message: "--format must be json or text, not 'xml'"),
        Misuse(arguments: ["scan", "--format=XML", "."], message: "--format must be json or text, not 'XML'"),
        Misuse(
            arguments: ["generate", "--module", "App", "--output", "G.swift", "--source-locations=no", "."],
            message: "--source-locations takes no value, not 'no'"),
        Misuse(
            arguments: ["review", "--module", "App", "--no-source-locations=yes", "."],
            message: "--no-source-locations takes no value, not 'yes'"),
    ]

    @Test(arguments: misuses) func usageErrorsExit64WithAMessageAndAUsageLine(misuse: Misuse) throws {
        let root = try folder([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(misuse.arguments, in: root)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty, "\(run.stdout)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(run.stderr)")
        #expect(lines.first?.hasPrefix("handlergen: error: ") == true, "\(run.stderr)")
        #expect(lines.first?.contains(misuse.message) == true, "\(run.stderr)")
        #expect(lines.last?.hasPrefix("usage: handlergen ") == true, "\(run.stderr)")
        // Nothing is written on a usage error.
        #expect(!FileManager.default.fileExists(atPath: root.appending(path: "G.swift").path))
    }

    @Test func usageLineNamesTheSubcommandAndItsRequiredOptions() throws {
        let root = try folder([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let generate = try handlergen(["generate", "--module", "App"], in: root)
        #expect(
            generate.stderr.hasSuffix(
                "usage: handlergen generate --module <module> --output <file> [<options>] <sources> ... (see 'handlergen generate --help')\n"
            ),
            "\(generate.stderr)")
        let unknown = try handlergen(["bogus"], in: root)
        #expect(unknown.stderr.contains("usage: handlergen generate|scan|review"), "\(unknown.stderr)")
    }

    @Test func optionsTakeTheirValueAfterAnEqualsSign() throws {
        let root = try folder(["Sources/Chat/Carbons.swift": Self.carbons])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(["generate", "--module=Chat", "--output=G.swift", "Sources/Chat"], in: root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            try String(contentsOf: root.appending(path: "G.swift"), encoding: .utf8).contains(
                "public static let chat: HandlerTable"))
        let scan = try handlergen(["scan", "--format=json", "Sources/Chat"], in: root)
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.hasPrefix(#"{"handlers":[{"file":"Carbons.swift""#), "\(scan.stdout)")
        // A value may contain `=` and options may follow the sources.
        let spaced = try handlergen(["review", "Sources/Chat", "--module", "Chat", "--output=a=b.txt"], in: root)
        #expect(spaced.status == 0, "\(spaced.stderr)")
        #expect(FileManager.default.fileExists(atPath: root.appending(path: "a=b.txt").path))
    }

    @Test func doubleDashEndsTheOptions() throws {
        let root = try folder(["-odd.swift": Self.carbons, "--odder.swift": Array("@handler func odder() {}\n".utf8)])
        defer { try? FileManager.default.removeItem(at: root) }
        let scan = try handlergen(["scan", "--format", "json", "--", "-odd.swift", "--odder.swift"], in: root)
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains(#""file":"-odd.swift""#), "\(scan.stdout)")
        #expect(scan.stdout.contains(#""file":"--odder.swift""#), "\(scan.stdout)")
        // After `--`, even `--help` is a source.
        let generate = try handlergen(
            ["generate", "--module", "App", "--output", "-", "--", "--odder.swift", "--help"], in: root)
        #expect(generate.status == 1)
        #expect(generate.stderr.contains("--help:"), "\(generate.stderr)")
        // `-` alone is a value (review prints to standard output).
        let review = try handlergen(["review", "--module", "App", "--output", "-", "--", "--odder.swift"], in: root)
        #expect(review.status == 0, "\(review.stderr)")
        #expect(review.stdout.contains("odderHandlerDescriptor"), "\(review.stdout)")
    }

    @Test func helpForASubcommandIsTheSameEveryWayItIsAskedFor() throws {
        let directory = FileManager.default.temporaryDirectory
        let help = try handlergen(["help", "generate"], in: directory)
        #expect(help.status == 0)
        #expect(help.stderr.isEmpty)
        for arguments in [
            ["generate", "--help"], ["generate", "-h"], ["generate", "--module", "App", "--bogus", "-h"],
        ] {
            let other = try handlergen(arguments, in: directory)
            #expect(other.status == 0, "\(arguments)")
            #expect(other.stdout == help.stdout, "\(arguments)")
        }
        for expected in [
            "OVERVIEW: Generate the module's handler file (what the HandlerKit build plugin",
            "The file is written only when its content changes.",
            "USAGE: handlergen generate --module <module> --output <file>",
            "  <sources>               Swift files and directories of the module.",
            "  --output <file>         The Swift file to write.",
            "  --source-locations/--no-source-locations",
            "  --c-header-directory <directory>",
            "  --libclang <path>",
            "  -h, --help              Show help information.",
        ] {
            #expect(help.stdout.contains(expected), "\(expected)\n\(help.stdout)")
        }
        // Laid out for an 80-column terminal (the JSON shape line of `scan` is the one exception).
        #expect(help.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(help.stdout)")
    }

    @Test func helpForTheToolListsTheSubcommands() throws {
        let directory = FileManager.default.temporaryDirectory
        let help = try handlergen(["--help"], in: directory)
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: Find @handler functions"))
        for name in ["generate", "scan", "review"] {
            #expect(help.stdout.contains("\n  \(name)  "), "\(name)\n\(help.stdout)")
        }
        for arguments in [["-h"], ["help"], []] {
            let other = try handlergen(arguments, in: directory)
            #expect(other.status == 0, "\(arguments)")
            #expect(other.stdout == help.stdout, "\(arguments)")
        }
    }

    @Test func sourceLocationsCanBeTurnedOff() throws {
        let root = try folder(["Sources/Chat/Carbons.swift": Self.carbons])
        defer { try? FileManager.default.removeItem(at: root) }
        func generated(_ flags: [String]) throws -> String {
            let run = try handlergen(
                ["generate", "--module", "Chat", "--output", "G.swift"] + flags + ["Sources/Chat"], in: root)
            #expect(run.status == 0, "\(run.stderr)")
            return try String(contentsOf: root.appending(path: "G.swift"), encoding: .utf8)
        }
        #expect(try generated([]).contains("#sourceLocation("))
        #expect(try !generated(["--no-source-locations"]).contains("#sourceLocation("))
        #expect(try generated(["--source-locations"]).contains("#sourceLocation("))
        // The last one given counts.
        #expect(try generated(["--no-source-locations", "--source-locations"]).contains("#sourceLocation("))
        #expect(try !generated(["--source-locations", "--no-source-locations"]).contains("#sourceLocation("))
    }

    @Test func everyCHeaderDirectoryIsRead() throws {
        let root = try folder([
            "Sources/App/Handlers.swift": Array(
                """
                import CPoints
                import CShapes

                enum Geometry {
                    @handler static func place(point: HKPoint, shape: HKShape) {}
                }

                """.utf8),
            "Sources/CPoints/include/Points.h": Array("typedef struct { int x; int y; } HKPoint;\n".utf8),
            "Sources/CShapes/include/Shapes.h": Array(
                "typedef enum { HKShapeRound = 1, HKShapeSquare = 2 } HKShape;\n".utf8),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(
            [
                "generate", "--module", "App", "--output", "G.swift",
                "--c-header-directory", "Sources/CPoints/include", "--c-header-directory=Sources/CShapes/include",
                "Sources/App",
            ], in: root)
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOf: root.appending(path: "G.swift"), encoding: .utf8)
        #expect(text.contains("extension HKPoint: @retroactive Codable"), "\(text)")
        #expect(text.contains("extension HKShape: @retroactive Codable"), "\(text)")
    }
}
