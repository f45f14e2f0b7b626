import Testing

@testable import Provision

// Protocols with primary associated types, and their metatypes, which the Swift 6.3 runtime can't print
// (found by hunt 28B: reflecting `any NamedStore<NamedUser>.Type` crashed the process).

protocol NamedStore<Element> {
    associatedtype Element
}
protocol NamedCache<Key, Value> {
    associatedtype Key
    associatedtype Value
}
enum NamedBilling {
    protocol Gateway<Currency> {
        associatedtype Currency
    }
}
struct NamedUser {}
struct NamedBox<Value> {}

@Suite("Type names of protocols with primary associated types")
struct ParameterizedProtocolNameTests {
    /// The types, with the names source spells them with. Test arguments are the names: Swift Testing
    /// prints its arguments, and the runtime can't print some of these types.
    static let cases: [String: Any.Type] = [
        "any NamedStore<NamedUser>": (any NamedStore<NamedUser>).self,
        "any NamedCache<String, Int>": (any NamedCache<String, Int>).self,
        "any NamedStore<NamedUser>.Type": (any NamedStore<NamedUser>.Type).self,
        "any NamedCache<String, [Int]>.Type": (any NamedCache<String, [Int]>.Type).self,
        "any NamedBilling.Gateway<Double>.Type": (any NamedBilling.Gateway<Double>.Type).self,
        "(any NamedStore<NamedUser>).Type": (any NamedStore<NamedUser>).Type.self,
        "(any NamedStore<NamedUser>.Type)?": (any NamedStore<NamedUser>.Type)?.self,
        "[any NamedStore<NamedUser>.Type]": [any NamedStore<NamedUser>.Type].self,
        "NamedBox<any NamedStore<NamedUser>>": NamedBox<any NamedStore<NamedUser>>.self,
        "NamedBox<NamedUser>.Type": NamedBox<NamedUser>.Type.self,
        "(any NamedStore).Type": (any NamedStore).Type.self,
    ]

    @Test(
        "existentials, their metatypes and their protocols' metatypes, as source spells them",
        arguments: cases.keys)
    func names(expected: String) {
        // Not `#require`: the expectation macros reflect the values they check.
        guard let type = Self.cases[expected] else {
            Issue.record("no type for \(expected)")
            return
        }
        #expect(TypeName.describe(type) == expected)
    }

    @Test("a key of such a metatype reflects without asking the runtime for its name")
    func reflection() {
        let key = BindingKey((any NamedStore<NamedUser>.Type).self, named: "primary")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(dumped.contains("any NamedStore<NamedUser>.Type"))
        #expect(key.description == "any NamedStore<NamedUser>.Type named \"primary\"")
    }
}
