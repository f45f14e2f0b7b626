import Testing

@testable import Provision

// How error messages spell types: as source spells them, also inside other types (see TypeName). The
// types are internal: a private type's runtime name has no module path to rewrite, and is printed as the
// runtime gives it.

protocol NamingStore {}
protocol NamingPlugin {}
struct NamingBox<Value> {
    struct Nested {}
}
struct NamingPair<First, Second> {}
final class NamingThing {}

@Suite("Type names in messages, inside other types")
struct TypeNameTests {
    @Test(
        "existentials, optionals, arrays and dictionaries inside generics, tuples, functions and metatypes",
        arguments: [
            (NamingBox<any NamingStore>.self as Any.Type, "NamingBox<any NamingStore>"),
            (NamingBox<Int?>.self, "NamingBox<Int?>"),
            (NamingBox<[String: [Int?]]>.self, "NamingBox<[String: [Int?]]>"),
            (NamingPair<(Int, String), any NamingStore>.self, "NamingPair<(Int, String), any NamingStore>"),
            (NamingBox<(Int) -> String?>.self, "NamingBox<(Int) -> String?>"),
            (NamingBox<((Int) -> Int)?>.self, "NamingBox<((Int) -> Int)?>"),
            (NamingBox<(any NamingStore)?>.self, "NamingBox<(any NamingStore)?>"),
            (NamingBox<(any NamingStore & NamingPlugin)?>.self, "NamingBox<(any NamingPlugin & NamingStore)?>"),
            (NamingBox<Int>.Nested.self, "NamingBox<Int>.Nested"),
            (NamingBox<(any NamingStore).Type>.self, "NamingBox<(any NamingStore).Type>"),
            (NamingBox<any NamingStore.Type>.self, "NamingBox<any NamingStore.Type>"),
            (((any NamingStore).Type).self, "(any NamingStore).Type"),
            ([any NamingStore].self, "[any NamingStore]"),
            (((any NamingStore, NamingThing) -> Void).self, "(any NamingStore, NamingThing) -> ()"),
            (NamingBox<any Error>.self, "NamingBox<any Error>"),
            (NamingBox<NamingThing>.self, "NamingBox<NamingThing>"),
            (NamingBox<Int>.self, "NamingBox<Int>"),
        ]
    )
    func spelled(_ type: Any.Type, _ expected: String) {
        #expect(TypeName.describe(type) == expected)
    }

    @Test("a struct or class named like nothing else is never taken for a protocol")
    func notProtocols() {
        #expect(!TypeName.isProtocol(named: "Swift.Int"))
        #expect(!TypeName.isProtocol(named: "Swift.String"))
        #expect(TypeName.isProtocol(named: "Swift.Error"))
        #expect(!TypeName.isProtocol(named: "NoSuchModule.NoSuchType"))
    }
}
