import Testing

@testable import Provision

@Suite("Named keys")
struct NamedKeyTests {
    @Test("a name equal as a Swift string finds the binding, whatever its Unicode form")
    func canonicalEquivalence() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        let injector = try Injector(ClosureModule { $0.bind(Config.self, named: composed).toInstance(Config(port: 1)) })
        #expect(try injector.get(Config.self, named: decomposed).port == 1)
        #expect(try injector.get(Config.self, named: composed).port == 1)
    }

    /// Three scalars decompose canonically to one ASCII character each, so a name holding them equals an
    /// ASCII name: the registry's fast ASCII hash must agree with the hash of the other spelling.
    @Test(
        "a name equal to an ASCII name finds its binding both ways (KELVIN SIGN, GREEK QUESTION MARK, GREEK VARIA)",
        arguments: [
            ("Kelvin", "\u{212A}elvin"), ("a;b", "a\u{37E}b"), ("`quoted`", "\u{1FEF}quoted\u{1FEF}"),
            ("K\u{301}", "\u{212A}\u{301}"),
        ]
    )
    func asciiEquivalentNames(ascii: String, unicode: String) throws {
        #expect(ascii == unicode)
        for (bound, requested) in [(ascii, unicode), (unicode, ascii)] {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Config.self, named: bound).toInstance(Config(port: 7))
                    binder.bind(Config.self, named: bound + "x").toInstance(Config(port: 8))
                }
            )
            #expect(try injector.get(Config.self, named: requested).port == 7)
            #expect(try injector.get(Config.self, named: requested + "x").port == 8)
            #expect(StripeTable.nameHash(bound) == StripeTable.nameHash(requested))
        }
    }

    @Test("a name of a string built at run time (not a literal) hashes and resolves like its literal")
    func runtimeBuiltNames() throws {
        let long = String(repeating: "service.", count: 8) + "primary"
        let built = (0..<8).map { _ in "service" }.joined(separator: ".") + ".primary"
        #expect(long == built)
        #expect(StripeTable.nameHash(long) == StripeTable.nameHash(built))
        let sliced = String("[primary]".dropFirst().dropLast())
        #expect(StripeTable.nameHash(sliced) == StripeTable.nameHash("primary"))
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Config.self, named: long).toInstance(Config(port: 1))
                binder.bind(Config.self, named: "primary").toInstance(Config(port: 2))
            }
        )
        #expect(try injector.get(Config.self, named: built).port == 1)
        #expect(try injector.get(Config.self, named: sliced).port == 2)
    }

    @Test("many named bindings of one type are each found by their own name", arguments: [1, 10, 1_000])
    func manyNames(count: Int) throws {
        let injector = try Injector(
            ClosureModule { binder in
                for index in 0..<count {
                    binder.bind(Config.self, named: "config \(index)").toInstance(Config(port: index))
                }
            }
        )
        for index in 0..<count {
            #expect(try injector.get(Config.self, named: "config \(index)").port == index)
        }
        let error = #expect(throws: ProvisionError.self) { try injector.get(Config.self, named: "config \(count)") }
        #expect(error?.code == .notBound)
    }
}
