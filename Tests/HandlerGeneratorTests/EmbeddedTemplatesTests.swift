import Foundation
import Testing

@testable import HandlerGenerator

/// The generator reads `Templates/` at run time and falls back to the copy compiled into
/// `EmbeddedTemplates.swift`; the two must not differ.
@Suite struct EmbeddedTemplatesTests {
    @Test func templatesAreReadFromTheSourceFolder() throws {
        let folder = try #require(Templates.texts(in: Templates.sourceDirectory))
        #expect(
            Set(folder.keys) == [
                Templates.file, Templates.descriptor, Templates.reference, Templates.call, Templates.cType,
            ])
        #expect(Templates.current == folder)
    }

    /// Fails while `EmbeddedTemplates.swift` differs from `Templates/`; `HANDLERKIT_RECORD=1` rewrites it.
    @Test func embeddedCopyMatchesTheTemplatesFolder() throws {
        let folder = try #require(Templates.texts(in: Templates.sourceDirectory))
        try Golden.check(
            Templates.embeddedSource(for: folder), against: "Sources/HandlerGenerator/EmbeddedTemplates.swift")
        if !Golden.isRecording {
            let same = EmbeddedTemplates.all == folder
            #expect(same, "EmbeddedTemplates.swift differs from Templates/; re-record with HANDLERKIT_RECORD=1")
        }
    }

    @Test func unreadableFolderGivesNoTemplates() {
        #expect(Templates.texts(in: URL(fileURLWithPath: "/nonexistent-handlerkit-templates")) == nil)
    }
}
