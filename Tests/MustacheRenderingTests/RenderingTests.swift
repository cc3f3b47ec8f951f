import MustacheRendering
import Testing

/// A context that answers lookups like the generator's contexts do (no reflection).
private struct Item: MustacheParent {
    var name: String
    var isLast: Bool
    func child(named key: String) -> Any? {
        switch key {
        case "name": name
        case "isLast": isLast
        default: nil
        }
    }
}

private func render(_ text: String, _ value: Any) throws -> String {
    try MustacheTemplate(parsing: text).render(value)
}

@Suite struct RenderingTests {
    @Test func variablesAreWrittenWithTheirDescription() throws {
        #expect(
            try render("a {{word}} {{count}} {{flag}} b", ["word": "x", "count": 42, "flag": true]) == "a x 42 true b")
        #expect(try render("[{{ spaced }}]", ["spaced": "y"]) == "[y]")
        #expect(try render("[{{missing}}]", [String: Any]()) == "[]")
        #expect(try render("[{{absent}}]", ["absent": String?.none as Any]) == "[]")
    }

    @Test func htmlIsEscapedByDefaultAndNotForText() throws {
        let value = ["v": #"<a href="x">&'"#]
        #expect(try render("{{v}}", value) == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        #expect(try render("{{{v}}}|{{&v}}", value) == #"<a href="x">&'|<a href="x">&'"#)
        #expect(try render("{{% CONTENT_TYPE: TEXT}}\n{{v}}", value) == #"<a href="x">&'"#)
        #expect(
            try render("{{%CONTENT_TYPE:TEXT}}{{v}}{{% CONTENT_TYPE: HTML}}{{v}}", value) == #"<a href="x">&'"#
                + "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
    }

    @Test func contentTypeIsScopedToItsSection() throws {
        let value: [String: Any] = ["v": "<", "on": true]
        #expect(try render("{{#on}}{{% CONTENT_TYPE: TEXT}}{{v}}{{/on}}{{v}}", value) == "<&lt;")
    }

    @Test func sectionsOverBooleansArraysAndValues() throws {
        let items = [Item(name: "a", isLast: false), Item(name: "b", isLast: true)]
        let value: [String: Any] = [
            "yes": true, "no": false, "items": items, "none": [Item](), "one": Item(name: "c", isLast: true),
        ]
        #expect(try render("{{#yes}}Y{{/yes}}{{#no}}N{{/no}}{{#missing}}M{{/missing}}", value) == "Y")
        #expect(try render("{{#items}}{{name}}{{^isLast}}, {{/isLast}}{{/items}}", value) == "a, b")
        #expect(try render("{{#none}}x{{/none}}{{^none}}empty{{/none}}", value) == "empty")
        #expect(try render("{{#one}}{{name}}{{/one}}", value) == "c")
    }

    @Test func invertedSectionsRenderWhenASectionWouldNot() throws {
        let value: [String: Any] = ["yes": true, "no": false, "list": [1], "text": ""]
        #expect(
            try render(
                "{{^yes}}1{{/yes}}{{^no}}2{{/no}}{{^missing}}3{{/missing}}{{^list}}4{{/list}}{{^text}}5{{/text}}", value
            ) == "23")
    }

    @Test func namesAreLookedUpOutwardsThroughEnclosingSections() throws {
        let value: [String: Any] = [
            "prefix": "p", "items": [Item(name: "a", isLast: true)], "outer": ["inner": ["leaf": "L"]],
        ]
        #expect(try render("{{#items}}{{prefix}}{{name}}{{/items}}", value) == "pa")
        #expect(try render("{{outer.inner.leaf}}|{{outer.nothing.leaf}}", value) == "L|")
        #expect(try render("{{#items}}[{{.name}}|{{.prefix}}]{{/items}}", value) == "[a|]")
        #expect(try render("{{#list}}{{.}};{{/list}}", ["list": [1, 2, 3]]) == "1;2;3;")
    }

    @Test func standaloneTagLinesDisappear() throws {
        let template = """
            {{% CONTENT_TYPE: TEXT}}
            begin
              {{#items}}
                - {{name}}
              {{/items}}
            {{^items}}
            none
            {{/items}}
              {{! a comment on its own line }}
            end
            """
        let items = [Item(name: "a", isLast: false), Item(name: "b", isLast: true)]
        #expect(try render(template, ["items": items]) == "begin\n    - a\n    - b\nend")
        #expect(try render(template, ["items": [Item]()]) == "begin\nnone\nend")
    }

    @Test func tagsSharingALineWithTextKeepTheLine() throws {
        #expect(try render("  {{#yes}}x{{/yes}}  \n", ["yes": true]) == "  x  \n")
        #expect(try render("a {{#no}}\nb\n{{/no}} c\n", ["no": false]) == "a  c\n")
        #expect(try render("  {{v}}\n", ["v": "x"]) == "  x\n")
        #expect(try render("{{#yes}}\n  {{/yes}}{{v}}\n", ["yes": true, "v": "x"]) == "  x\n")
    }

    @Test func windowsLineEndsAreLineEnds() throws {
        #expect(try render("{{#yes}}\r\nline\r\n{{/yes}}\r\nafter", ["yes": true]) == "line\r\nafter")
    }

    @Test func commentsRenderNothing() throws {
        #expect(try render("a{{! ignored {{ braces }}b", [String: Any]()) == "ab")
    }

    @Test func textWithoutTagsIsKeptExactly() throws {
        let text = "line one\n\tindented { not a tag } }}\n\nlast line without ending"
        #expect(try render(text, [String: Any]()) == text)
    }
}
