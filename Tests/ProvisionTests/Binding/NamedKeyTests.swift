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

    @Test("the empty name is a name of its own, apart from the unnamed binding")
    func emptyName() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Config.self).toInstance(Config(port: 1))
                binder.bind(Config.self, named: "").toInstance(Config(port: 2))
            }
        )
        #expect(try injector.get(Config.self).port == 1)
        #expect(try injector.get(Config.self, named: "").port == 2)
        #expect(injector.hasBinding(for: Config.self, named: ""))
        let unbound = try Injector(ClosureModule { $0.bind(Config.self).toInstance(Config(port: 1)) })
        let error = #expect(throws: ProvisionError.self) { try unbound.get(Config.self, named: "") }
        #expect(error?.code == .notBound)
    }

    @Test("one module binding two spellings of one name is a duplicate binding")
    func equalSpellingsAreDuplicates() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Config.self, named: "Kelvin").toInstance(Config(port: 1))
                    binder.bind(Config.self, named: "\u{212A}elvin").toInstance(Config(port: 2))
                }
            )
        }
        #expect(error?.code == .duplicateBinding)
    }

    @Test("every API that takes a name accepts any spelling Swift calls equal")
    func equalSpellingsEverywhere() throws {
        let ascii = "Kelvin"
        let unicode = "\u{212A}elvin"
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Config.self, named: ascii).toInstance(Config(port: 1))
                binder.bind(String.self, named: unicode).toInstance("seven")
                binder.bind((any PortHolder).self).to(binding: Config.self, named: unicode)
            }
        )
        #expect(parent.hasBinding(for: Config.self, named: unicode))
        #expect(try parent.get((any PortHolder).self).port == 1)
        let child = try parent.makeChild(ClosureModule { $0.bind(Double.self, named: ascii).toInstance(2) })
        #expect(try child.get(Config.self, named: unicode).port == 1)
        #expect(try child.get(String.self, named: ascii) == "seven")
        #expect(try child.get(Double.self, named: unicode) == 2)
        let overridden = try parent.overriding { $0.bind(Config.self, named: unicode).toInstance(Config(port: 3)) }
        #expect(try overridden.get(Config.self, named: ascii).port == 3)
    }

    @Test("a seed declared under one spelling is provided and resolved under another")
    func equalSpellingsOfSeeds() throws {
        let injector = try Injector(ClosureModule { $0.bind(Config.self, named: "\u{212A}elvin").toSeed() })
        let scope = try injector.makeScope { seed in seed.provide(Config(port: 9), named: "Kelvin") }
        #expect(try scope.get(Config.self, named: "Kelvin").port == 9)
        #expect(try scope.get(Config.self, named: "\u{212A}elvin").port == 9)
        try scope.close()
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

/// What a delegating binding of ``NamedKeyTests`` converts a named `Config` to.
private protocol PortHolder: Sendable {
    var port: Int { get }
}

extension Config: PortHolder {}
