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
