import LumaScanCore
import Testing

/// The message `ConfigurationSyntax.check` refuses `bytes` with, or `nil` when it accepts them.
private func syntaxError(_ bytes: [UInt8]) -> String? {
    do {
        try ConfigurationSyntax.check(bytes)
        return nil
    } catch {
        #expect(error.code == .invalidConfiguration)
        return error.message
    }
}

private func syntaxError(_ text: String) -> String? { syntaxError(Array(text.utf8)) }

@Suite("ConfigurationSyntax: malformed documents are located and explained")
struct ConfigurationSyntaxTests {
    @Test("well-formed documents pass, whatever their values")
    func wellFormed() {
        for text in [
            #"{}"#, #" {"a": [1, -2.5e-3, 0, true, false, null, "x\u00e9\n\"\\", {}, []]} "#, "[]", "0", "\"\"",
            #"{"a": {"b": {"a": 1}}, "b": 2}"#, #"{"😀": "\ud83d\ude00"}"#, "{\"é\": \"日本\"}",
        ] {
            #expect(syntaxError(text) == nil, "\(text)")
        }
    }

    @Test(
        "each malformed document names its position and what was expected",
        arguments: [
            ("", "(root): the document is empty; expected a JSON object"),
            ("  \n", "(root): the document holds only white space"),
            ("\u{FEFF}{}", "(root): line 1, column 1 (byte 0): the document starts with a UTF-8 byte order mark"),
            (#"{"a": 1} x"#, "(root): line 1, column 10 (byte 9): expected nothing after the end"),
            (#"{"a": 1}{}"#, "(root): line 1, column 9 (byte 8): expected nothing after the end"),
            (
                "{\"a\":\n  [1, 2",
                "a: line 2, column 8 (byte 13): the document ends inside an array; expected ',' or ']'"
            ),
            (
                #"{"a": "abc"#,
                "a: line 1, column 11 (byte 10): the document ends inside a string (opened at line 1, column 7"
            ),
            (
                "{\"a\": 1,\n \"b\" 2}",
                "(root): line 2, column 6 (byte 14): expected ':' after the key \"b\", found '2'"
            ),
            (#"{"a": 1 "b": 2}"#, "(root): line 1, column 9 (byte 8): expected ',' or '}' after an object member"),
            (#"{"a": 01}"#, "a: line 1, column 8 (byte 7): a number may not have leading zeros"),
            (#"{"a": 1.}"#, "a: line 1, column 9 (byte 8): expected a digit after a number's decimal point"),
            (#"{"a": tru}"#, "a: line 1, column 10 (byte 9): expected 'true'"),
            (#"{"a": [1,]}"#, "a: line 1, column 10 (byte 9): expected a value"),
            (#"{"a": 1,}"#, "(root): line 1, column 9 (byte 8): expected a key (a string) after ','"),
            (#"{'a': 1}"#, "(root): line 1, column 2 (byte 1): expected a key (a string) or '}', found '''"),
            (#"{"a": "\x"}"#, "a: line 1, column 9 (byte 8): expected one of"),
            ("{\"a\": \"tab\there\"}", "a: line 1, column 11 (byte 10): a control character must be escaped"),
        ])
    func malformed(text: String, expected: String) {
        let message = syntaxError(text)
        #expect(message?.hasPrefix(expected) == true, "got: \(message ?? "accepted")")
    }

    @Test("invalid UTF-8 is refused at its byte, in strings and outside them")
    func invalidUTF8() {
        let prefix = Array(#"{"id": "ab"#.utf8)
        for (bad, problem) in [
            ([0xFF], "a byte that cannot start a character"), ([0xC3], "cut short"), ([0xC0, 0xAF], "cannot start"),
            ([0xE0, 0x80, 0xAF], "overlong"), ([0xED, 0xA0, 0x80], "surrogate"), ([0xF4, 0x90, 0x80, 0x80], "above"),
        ] as [([UInt8], String)] {
            let message = syntaxError(prefix + bad + Array(#""}"#.utf8))
            #expect(
                message?.hasPrefix("id: line 1, column 11 (byte 10): invalid UTF-8") == true, "\(bad): \(message ?? "")"
            )
            #expect(message?.contains(problem) == true, "\(bad): \(message ?? "")")
        }
        #expect(
            syntaxError([0x7B, 0xFF, 0x7D])?.hasPrefix("(root): line 1, column 2 (byte 1): expected a key") == true)
    }

    @Test("a key given twice in one object is refused, naming both positions")
    func duplicateKeys() {
        let text = """
            {"viewPluginConfig": {"pluginConfig": {"scanTimeout": 10,
              "scanTimeout": -1}}}
            """
        #expect(
            syntaxError(text)
                == "viewPluginConfig.pluginConfig.scanTimeout: duplicate key at line 2, column 3 (byte 60); "
                + "first given at line 1, column 40 (byte 39)")
        #expect(syntaxError(#"{"a": 1, "\u0061": 2}"#)?.hasPrefix("a: duplicate key") == true)
        #expect(syntaxError(#"{"a": [{"b": 1}, {"b": 1, "b": 1}]}"#)?.hasPrefix("a[1].b: duplicate key") == true)
    }

    @Test("10,000-deep nesting is refused at the 65th level without exhausting the stack")
    func deepNesting() {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let text = String(repeating: open, count: 10_000) + "1" + String(repeating: close, count: 10_000)
            let message = syntaxError(text)
            #expect(message?.contains("nested deeper than 64 objects and arrays") == true, "\(message ?? "accepted")")
        }
        let shallow = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(syntaxError(shallow) == nil)
    }

    @Test("truncating a document anywhere is refused, never accepted or crashed on")
    func truncation() {
        let text =
            #"{"viewPluginConfig": {"pluginConfig": {"id": "a\u00e9", "scanTimeout": 1.5e2, "x": [true, null]}}}"#
        let bytes = Array(text.utf8)
        #expect(syntaxError(bytes) == nil)
        for count in 1..<bytes.count {
            #expect(syntaxError(Array(bytes[..<count])) != nil, "accepted \(count) bytes")
        }
    }

    @Test("excerpts keep at most 200 characters and say how many were left out")
    func excerpts() {
        #expect(ConfigurationSyntax.excerpt("short") == "short")
        let long = ConfigurationSyntax.excerpt(String(repeating: "x", count: 50_000))
        #expect(long == String(repeating: "x", count: 200) + "… (49800 more characters)")
    }
}
