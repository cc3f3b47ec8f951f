import MustacheRendering
import Testing

/// Malformed templates are errors naming the template, the line and column and what is wrong —
/// never a crash and never a silently different rendering.
@Suite struct ParsingErrorTests {
    private func failure(_ text: String) -> MustacheError? {
        do {
            _ = try MustacheTemplate(parsing: text, named: "t.mustache")
            return nil
        } catch {
            return error
        }
    }

    @Test func unclosedSectionPointsAtItsOpeningTag() throws {
        let error = try #require(failure("a\nb {{#items}}\nc\n"))
        #expect(
            error
                == MustacheError(
                    template: "t.mustache", line: 2, column: 3, message: "section '{{#items}}' is not closed"))
        #expect(error.description == "t.mustache:2:3: section '{{#items}}' is not closed")
    }

    @Test func mismatchedClosingTagNamesBothSections() throws {
        let error = try #require(failure("{{#a}}\n{{#b}}\n{{/a}}\n{{/b}}"))
        #expect(error.line == 3 && error.column == 1)
        #expect(error.message == "'{{/a}}' does not close the open section '{{#b}}' of line 2")
    }

    @Test func closingTagWithoutSection() throws {
        let error = try #require(failure("x\n  {{/a}}"))
        #expect((error.line, error.column, error.message) == (2, 3, "'{{/a}}' closes no open section"))
    }

    @Test func unfinishedTags() throws {
        #expect(try #require(failure("ok {{name")).message == "tag must end with '}}' after its name")
        #expect(try #require(failure("{{name}")).line == 1)
        #expect(
            try #require(failure("x\n{{"))
                == MustacheError(
                    template: "t.mustache", line: 2, column: 1, message: "'{{' opens a tag that is not closed"))
        #expect(try #require(failure("{{{name}}")).message == "'{{{name' must end with '}}}'")
        #expect(try #require(failure("{{ }}")).message == "tag has no name")
        #expect(try #require(failure("{{na me}}")).message == "tag must end with '}}' after its name")
        #expect(try #require(failure("{{! never closed")).message == "comment '{{!' is not closed with '}}'")
    }

    @Test func unsupportedMustacheFeaturesAreErrors() throws {
        #expect(try #require(failure("{{> partial}}")).message == "partials ('{{>' and '{{<') are not supported")
        #expect(
            try #require(failure("{{< parent}}{{/parent}}")).message == "partials ('{{>' and '{{<') are not supported")
        #expect(try #require(failure("{{$block}}{{/block}}")).message == "blocks ('{{$') are not supported")
        #expect(try #require(failure("{{=<% %>=}}")).message == "changing the delimiters ('{{=') is not supported")
        #expect(try #require(failure("{{upper(name)}}")).message == "transforms ('name(…)') are not supported")
    }

    @Test func pragmasOtherThanContentTypeAreErrors() throws {
        #expect(
            try #require(failure("{{% CONTENT_TYPE: JSON}}")).message == "unknown content type 'JSON' (TEXT or HTML)")
        #expect(try #require(failure("{{% OTHER: TEXT}}")).message == "unknown pragma 'OTHER'")
        #expect(
            try #require(failure("{{% CONTENT_TYPE TEXT}}")).message == "pragma must read '{{% CONTENT_TYPE: TEXT}}'")
        #expect(try #require(failure("{{% CONTENT_TYPE: TEXT")).message == "pragma must end with '}}'")
    }
}
