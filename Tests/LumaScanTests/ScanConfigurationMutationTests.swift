import Foundation
import LumaScanCore
import Testing

@testable import LumaScan

/// A JSON value, to take documents apart and mutate them.
indirect enum JSONValue: Hashable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    static func parse(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// The value as JSON text, keys sorted.
    var text: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return "\(value)"
        case .string(let value):
            let data = (try? JSONEncoder().encode(value)) ?? Data("\"\"".utf8)
            return String(decoding: data, as: UTF8.self)
        case .array(let values): return "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            let parts = members.sorted { $0.key < $1.key }.map { JSONValue.string($0.key).text + ":" + $0.value.text }
            return "{" + parts.joined(separator: ",") + "}"
        }
    }
}

/// One step of a path into a JSON value.
enum JSONStep: Hashable {
    case key(String)
    case index(Int)
}

extension [JSONStep] {
    /// The path as LumaScan's messages print it: `a.b[0].c`, `(root)` for the empty path.
    var rendered: String {
        var text = ""
        for step in self {
            switch step {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .index(let index): text += "[\(index)]"
            }
        }
        return text.isEmpty ? "(root)" : text
    }
}

extension JSONValue {
    /// Every path in the value (the root included), rendered.
    var renderedPaths: Set<String> {
        var result: Set<String> = []
        func walk(_ value: JSONValue, _ path: [JSONStep]) {
            result.insert(path.rendered)
            switch value {
            case .object(let members): for (key, member) in members { walk(member, path + [.key(key)]) }
            case .array(let values):
                for (index, element) in values.enumerated() { walk(element, path + [.index(index)]) }
            default: break
            }
        }
        walk(self, [])
        return result
    }

    /// Every key in the value, at any depth.
    var allKeys: Set<String> {
        switch self {
        case .object(let members):
            members.keys.reduce(into: Set(members.keys)) { $0.formUnion(members[$1]?.allKeys ?? []) }
        case .array(let values): values.reduce(into: []) { $0.formUnion($1.allKeys) }
        default: []
        }
    }

    /// Every (path, value) pair, depth first, in a stable order.
    func entries(_ path: [JSONStep] = []) -> [([JSONStep], JSONValue)] {
        var result: [([JSONStep], JSONValue)] = [(path, self)]
        switch self {
        case .object(let members):
            for key in members.keys.sorted() { result += members[key].map { $0.entries(path + [.key(key)]) } ?? [] }
        case .array(let values):
            for (index, element) in values.enumerated() { result += element.entries(path + [.index(index)]) }
        default: break
        }
        return result
    }

    /// The value with the value at `path` transformed by `change` (which returns `nil` to delete it from its object).
    func updating(_ path: ArraySlice<JSONStep>, _ change: (JSONValue) -> JSONValue?) -> JSONValue? {
        guard let step = path.first else { return change(self) }
        switch (self, step) {
        case (.object(var members), .key(let key)):
            guard let member = members[key] else { return self }
            members[key] = member.updating(path.dropFirst(), change)
            return .object(members)
        case (.array(var values), .index(let index)):
            guard values.indices.contains(index), let updated = values[index].updating(path.dropFirst(), change) else {
                return self
            }
            values[index] = updated
            return .array(values)
        default:
            return self
        }
    }

    /// The object at `path` with `body` applied to its members.
    func updatingObject(at path: [JSONStep], _ body: @escaping (inout [String: JSONValue]) -> Void) -> JSONValue {
        updating(path[...]) { value in
            guard case .object(var members) = value else { return value }
            body(&members)
            return .object(members)
        } ?? self
    }
}

/// A mutated document, what was done, and the paths a refusal may name.
struct Mutation {
    var description: String
    var document: JSONValue
    /// The mutated key's parent path and, for renames and additions, the new key's path.
    var allowedPaths: Set<String>
}

/// Makes the mutations the issue asks for, systematically over every key and value of a document.
enum Mutator {
    static let letters = Array("abcdefghijklmnopqrstuvwxyz")

    /// `key` changed by one edit (insert, delete or replace one character), chosen by `random`.
    static func renamed(_ key: String, _ random: inout SplitMix64) -> String {
        var characters = Array(key)
        let letter = letters[Int(random.next() % UInt64(letters.count))]
        switch random.next() % 3 {
        case 0:
            characters.insert(letter, at: Int(random.next() % UInt64(characters.count + 1)))
        case 1 where !characters.isEmpty:
            characters.remove(at: Int(random.next() % UInt64(characters.count)))
        default:
            guard !characters.isEmpty else { return key + String(letter) }
            let index = Int(random.next() % UInt64(characters.count))
            characters[index] = characters[index] == letter ? "q" : letter
        }
        return String(characters)
    }

    /// A value of another JSON type than `value`'s.
    static func retyped(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null: .string("x")
        case .bool: .number(1)
        case .number: .string("x")
        case .string: .bool(true)
        case .array: .object([:])
        case .object: .array([])
        }
    }

    /// A value out of every range: a hugely negative number, an empty string; `nil` for other types.
    static func outOfRange(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .number: .number(-1e12)
        case .string: .string("")
        default: nil
        }
    }

    static func mutations(of document: JSONValue, seed: UInt64) -> [Mutation] {
        var random = SplitMix64(seed: seed)
        let existingKeys = document.allKeys
        var result: [Mutation] = []
        for (path, value) in document.entries() where !path.isEmpty {
            let parent = Array(path.dropLast())
            let parentPaths: Set<String> = [parent.rendered]
            if case .key(let key) = path.last {
                if let deleted = document.updating(path[...], { _ in nil }) {
                    result.append(
                        Mutation(description: "delete \(path.rendered)", document: deleted, allowedPaths: parentPaths))
                }
                for _ in 0..<2 {
                    let newKey = renamed(key, &random)
                    guard newKey != key, !existingKeys.contains(newKey) else { continue }
                    let renamedDocument = document.updatingObject(at: parent) { members in
                        members[newKey] = members.removeValue(forKey: key)
                    }
                    result.append(
                        Mutation(
                            description: "rename \(path.rendered) to \(newKey)", document: renamedDocument,
                            allowedPaths: parentPaths.union([(parent + [.key(newKey)]).rendered])))
                }
            }
            if let retyped = document.updating(path[...], { Self.retyped($0) }) {
                result.append(
                    Mutation(
                        description: "retype \(path.rendered) (\(value.text.prefix(30)))", document: retyped,
                        allowedPaths: parentPaths))
            }
            if let bad = outOfRange(value), let changed = document.updating(path[...], { _ in bad }) {
                result.append(
                    Mutation(
                        description: "\(path.rendered) = \(bad.text)", document: changed, allowedPaths: parentPaths))
            }
            // Duplicate plugin configurations: give a pluginConfig a second recognizer configuration.
            if case .key("pluginConfig") = path.last, case .object(let members) = value {
                for kind in ScanConfiguration.PluginKind.allCases where members[kind.jsonKey] == nil {
                    let added = document.updatingObject(at: path) { $0[kind.jsonKey] = .object([:]) }
                    result.append(
                        Mutation(
                            description: "add \(kind.jsonKey) to \(path.rendered)", document: added,
                            allowedPaths: [path.rendered, (path + [.key(kind.jsonKey)]).rendered]))
                }
            }
        }
        // Both a single plugin and a composite at the root.
        if case .object(let members) = document {
            let other = members["viewPluginConfig"] == nil ? "viewPluginConfig" : "viewPluginCompositeConfig"
            let single = members["viewPluginConfig"] ?? .object([:])
            let copy: JSONValue =
                other == "viewPluginConfig"
                ? single : .object(["viewPlugins": .array([.object(["viewPluginConfig": single])])])
            let added = document.updatingObject(at: []) { $0[other] = copy }
            result.append(Mutation(description: "add \(other)", document: added, allowedPaths: ["(root)", other]))
        }
        return result
    }
}

@Suite("ScanConfiguration: every mutation of a valid document decodes to the same meaning or fails with a path")
struct ScanConfigurationMutationTests {
    /// Valid documents in which every key holds its default (or is required), so deleting a key keeps the meaning.
    static func baseDocuments() -> [(String, String)] {
        let secureQR = ScanConfiguration(
            viewPluginConfig: ViewPluginConfig(
                pluginConfig: PluginConfig(
                    recognizer: .secureQR(SecureQRConfiguration(issuerPrefixes: ["https://scan.example.com/q/"])))))
        let composite = ScanConfiguration(
            viewPluginCompositeConfig: ViewPluginCompositeConfig(viewPlugins: [
                ScanConfiguration.defaultConfiguration(for: .barcode).viewPlugins[0],
                ScanConfiguration.defaultConfiguration(for: .meter).viewPlugins[0],
            ]))
        return [
            ("barcode", ScanConfiguration.defaultConfiguration(for: .barcode).asJSONString()),
            ("meter", ScanConfiguration.defaultConfiguration(for: .meter).asJSONString()),
            ("secure QR", secureQR.asJSONString()),
            ("composite", composite.asJSONString()),
        ]
    }

    /// The JSON path a refusal's message starts with (up to the first `": "`).
    static func messagePath(_ message: String) -> String {
        guard let range = message.range(of: ": ") else { return message }
        return String(message[..<range.lowerBound])
    }

    @Test("hundreds of seeded mutations of four documents: same meaning, or a refusal naming a path")
    func mutations() throws {
        var total = 0
        var refused = 0
        for (seedOffset, (name, text)) in Self.baseDocuments().enumerated() {
            let original = try ScanConfiguration.decode(json: text)
            let document = try JSONValue.parse(text)
            #expect(document.text == (try JSONValue.parse(original.asJSONString())).text)
            let originalPaths = document.renderedPaths
            for mutation in Mutator.mutations(of: document, seed: 0x5EED + UInt64(seedOffset)) {
                total += 1
                do {
                    let decoded = try ScanConfiguration.decode(json: mutation.document.text)
                    #expect(decoded == original, "\(name): \(mutation.description) decoded to another meaning")
                } catch {
                    refused += 1
                    #expect(error.code == .invalidConfiguration)
                    let path = Self.messagePath(error.message)
                    let named =
                        originalPaths.contains(path) || mutation.document.renderedPaths.contains(path)
                        || mutation.allowedPaths.contains(path)
                    #expect(
                        named,
                        "\(name): \(mutation.description) was refused naming no path of the document: \(error.message)")
                }
            }
        }
        #expect(total >= 400, "only \(total) mutations")
        #expect(refused > total / 3, "only \(refused) of \(total) mutations were refused")
    }

    @Test("the mutator is deterministic")
    func deterministic() throws {
        let document = try JSONValue.parse(ScanConfiguration().asJSONString())
        let first = Mutator.mutations(of: document, seed: 7).map(\.description)
        let second = Mutator.mutations(of: document, seed: 7).map(\.description)
        #expect(first == second)
    }
}
