import Testing

@testable import Provision

// Hunt 25B, part 3: property injection of subclass instances built by constructor bindings
// (PropertyInjectable.swift: "The object's own class decides, whatever the key it is bound to"; exactly
// once per instance). `PropertyInjection.finish` now reads `injection.instancesAreObjects`.

final class Hunt25BDep: Sendable {}
typealias Hunt25BD = Hunt25BDep
final class Hunt25BExtra: Sendable {}
/// Nothing binds this.
final class Hunt25BUnbound: Sendable {}

/// A class that declares no injected properties.
class Hunt25BBase: PropertyInjectable, @unchecked Sendable {
    init() {}
    class var injectedProperties: [InjectedProperty] { [] }
    var injections = 0
    func didInjectDependencies() { injections += 1 }
}

/// A subclass that declares one; counts the sets of it.
final class Hunt25BSub: Hunt25BBase, @unchecked Sendable {
    let dep: Hunt25BDep
    var sets = 0
    var extra: Hunt25BExtra? { didSet { sets += 1 } }
    init(_ dep: Hunt25BDep) {
        self.dep = dep
        super.init()
    }
    override class var injectedProperties: [InjectedProperty] { [.inject(\Hunt25BSub.extra)] }
}

/// A subclass whose injected property nothing binds.
final class Hunt25BSubMissing: Hunt25BBase, @unchecked Sendable {
    var unbound: Hunt25BUnbound?
    override init() { super.init() }
    override class var injectedProperties: [InjectedProperty] { [.inject(\Hunt25BSubMissing.unbound)] }
}

final class Hunt25BLevel0: Sendable {
    let next: Hunt25BLevel1
    init(next: Hunt25BLevel1) { self.next = next }
}
final class Hunt25BLevel1: Sendable {
    let next: Hunt25BLevel2
    init(next: Hunt25BLevel2) { self.next = next }
}
final class Hunt25BLevel2: Sendable {
    let next: Hunt25BLevel3
    init(next: Hunt25BLevel3) { self.next = next }
}
final class Hunt25BLevel3: Sendable {
    let next: Hunt25BLevel4
    init(next: Hunt25BLevel4) { self.next = next }
}
final class Hunt25BLevel4: Sendable {
    let next: Hunt25BLevel5
    init(next: Hunt25BLevel5) { self.next = next }
}
final class Hunt25BLevel5: Sendable {
    let next: Hunt25BLevel6
    init(next: Hunt25BLevel6) { self.next = next }
}
final class Hunt25BLevel6: Sendable {
    let next: Hunt25BLevel7
    init(next: Hunt25BLevel7) { self.next = next }
}
final class Hunt25BLevel7: Sendable {
    let next: Hunt25BLevel8
    init(next: Hunt25BLevel8) { self.next = next }
}
final class Hunt25BLevel8: Sendable {
    let next: Hunt25BLevel9
    init(next: Hunt25BLevel9) { self.next = next }
}
final class Hunt25BLevel9: Sendable {
    let next: Hunt25BLevel10
    init(next: Hunt25BLevel10) { self.next = next }
}
final class Hunt25BLevel10: Sendable {
    let next: Hunt25BLevel11
    init(next: Hunt25BLevel11) { self.next = next }
}
final class Hunt25BLevel11: Sendable {
    let next: Hunt25BLevel12
    init(next: Hunt25BLevel12) { self.next = next }
}
final class Hunt25BLevel12: Sendable {
    let next: Hunt25BLevel13
    init(next: Hunt25BLevel13) { self.next = next }
}
final class Hunt25BLevel13: Sendable {
    let next: Hunt25BLevel14
    init(next: Hunt25BLevel14) { self.next = next }
}
final class Hunt25BLevel14: Sendable {
    let next: Hunt25BLevel15
    init(next: Hunt25BLevel15) { self.next = next }
}
final class Hunt25BLevel15: Sendable {
    let next: Hunt25BLevel16
    init(next: Hunt25BLevel16) { self.next = next }
}
final class Hunt25BLevel16: Sendable {
    let next: Hunt25BLevel17
    init(next: Hunt25BLevel17) { self.next = next }
}
final class Hunt25BLevel17: Sendable {
    let next: Hunt25BLevel18
    init(next: Hunt25BLevel18) { self.next = next }
}
final class Hunt25BLevel18: Sendable {
    let next: Hunt25BLevel19
    init(next: Hunt25BLevel19) { self.next = next }
}
final class Hunt25BLevel19: Sendable {
    let next: Hunt25BLevel20
    init(next: Hunt25BLevel20) { self.next = next }
}
final class Hunt25BLevel20: Sendable {
    let next: Hunt25BLevel21
    init(next: Hunt25BLevel21) { self.next = next }
}
final class Hunt25BLevel21: Sendable {
    let next: Hunt25BLevel22
    init(next: Hunt25BLevel22) { self.next = next }
}
final class Hunt25BLevel22: Sendable {
    let next: Hunt25BLevel23
    init(next: Hunt25BLevel23) { self.next = next }
}
final class Hunt25BLevel23: Sendable {
    let next: Hunt25BLevel24
    init(next: Hunt25BLevel24) { self.next = next }
}
final class Hunt25BLevel24: Sendable {
    let next: Hunt25BLevel25
    init(next: Hunt25BLevel25) { self.next = next }
}
final class Hunt25BLevel25: Sendable {
    let next: Hunt25BLevel26
    init(next: Hunt25BLevel26) { self.next = next }
}
final class Hunt25BLevel26: Sendable {
    let next: Hunt25BLevel27
    init(next: Hunt25BLevel27) { self.next = next }
}
final class Hunt25BLevel27: Sendable {
    let next: Hunt25BLevel28
    init(next: Hunt25BLevel28) { self.next = next }
}
final class Hunt25BLevel28: Sendable {
    let next: Hunt25BLevel29
    init(next: Hunt25BLevel29) { self.next = next }
}
final class Hunt25BLevel29: Sendable {
    let next: Hunt25BLevel30
    init(next: Hunt25BLevel30) { self.next = next }
}
final class Hunt25BLevel30: Sendable {
    let next: Hunt25BLevel31
    init(next: Hunt25BLevel31) { self.next = next }
}
final class Hunt25BLevel31: Sendable {
    let next: Hunt25BLevel32
    init(next: Hunt25BLevel32) { self.next = next }
}
final class Hunt25BLevel32: Sendable {
    let next: Hunt25BLevel33
    init(next: Hunt25BLevel33) { self.next = next }
}
final class Hunt25BLevel33: Sendable {
    let next: Hunt25BLevel34
    init(next: Hunt25BLevel34) { self.next = next }
}
final class Hunt25BLevel34: Sendable {
    let next: Hunt25BLevel35
    init(next: Hunt25BLevel35) { self.next = next }
}
final class Hunt25BLevel35: Sendable {
    let next: Hunt25BLevel36
    init(next: Hunt25BLevel36) { self.next = next }
}
final class Hunt25BLevel36: Sendable {
    let next: Hunt25BLevel37
    init(next: Hunt25BLevel37) { self.next = next }
}
final class Hunt25BLevel37: Sendable {
    let next: Hunt25BLevel38
    init(next: Hunt25BLevel38) { self.next = next }
}
final class Hunt25BLevel38: Sendable {
    let next: Hunt25BLevel39
    init(next: Hunt25BLevel39) { self.next = next }
}
final class Hunt25BLevel39: Sendable {
    let next: Hunt25BBase
    init(next: Hunt25BBase) { self.next = next }
}

enum Hunt25BProperties {
    static func arityModule(_ binder: Binder) {
        binder.bind(Hunt25BBase.self, named: "1").to { (d0: Hunt25BD) -> Hunt25BBase in Hunt25BSub(d0) }
        binder.bind(Hunt25BBase.self, named: "2").to { (d0: Hunt25BD, d1: Hunt25BD) -> Hunt25BBase in Hunt25BSub(d0) }
        binder.bind(Hunt25BBase.self, named: "3").to { (d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD) -> Hunt25BBase in
            Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "4").to {
            (d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD) -> Hunt25BBase in Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "5").to {
            (d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD) -> Hunt25BBase in Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "6").to {
            (d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD, d5: Hunt25BD) -> Hunt25BBase in
            Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "7").to {
            (d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD, d5: Hunt25BD, d6: Hunt25BD)
                -> Hunt25BBase in Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "8").to {
            (
                d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD, d5: Hunt25BD, d6: Hunt25BD,
                d7: Hunt25BD
            ) -> Hunt25BBase in Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "9").to {
            (
                d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD, d5: Hunt25BD, d6: Hunt25BD,
                d7: Hunt25BD, d8: Hunt25BD
            ) -> Hunt25BBase in Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "10").to {
            (
                d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD, d5: Hunt25BD, d6: Hunt25BD,
                d7: Hunt25BD, d8: Hunt25BD, d9: Hunt25BD
            ) -> Hunt25BBase in Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "11").to {
            (
                d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD, d5: Hunt25BD, d6: Hunt25BD,
                d7: Hunt25BD, d8: Hunt25BD, d9: Hunt25BD, d10: Hunt25BD
            ) -> Hunt25BBase in Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "12").to {
            (
                d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD, d5: Hunt25BD, d6: Hunt25BD,
                d7: Hunt25BD, d8: Hunt25BD, d9: Hunt25BD, d10: Hunt25BD, d11: Hunt25BD
            ) -> Hunt25BBase in Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "13").to {
            (
                d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD, d5: Hunt25BD, d6: Hunt25BD,
                d7: Hunt25BD, d8: Hunt25BD, d9: Hunt25BD, d10: Hunt25BD, d11: Hunt25BD, d12: Hunt25BD
            ) -> Hunt25BBase in Hunt25BSub(d0)
        }
        binder.bind(Hunt25BBase.self, named: "14").to {
            (
                d0: Hunt25BD, d1: Hunt25BD, d2: Hunt25BD, d3: Hunt25BD, d4: Hunt25BD, d5: Hunt25BD, d6: Hunt25BD,
                d7: Hunt25BD, d8: Hunt25BD, d9: Hunt25BD, d10: Hunt25BD, d11: Hunt25BD, d12: Hunt25BD, d13: Hunt25BD
            ) -> Hunt25BBase in Hunt25BSub(d0)
        }
    }

    static func chainModule(scope: Scope) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt25BLevel0.self).to(Hunt25BLevel0.init(next:))
            binder.bind(Hunt25BLevel1.self).to(Hunt25BLevel1.init(next:))
            binder.bind(Hunt25BLevel2.self).to(Hunt25BLevel2.init(next:))
            binder.bind(Hunt25BLevel3.self).to(Hunt25BLevel3.init(next:))
            binder.bind(Hunt25BLevel4.self).to(Hunt25BLevel4.init(next:))
            binder.bind(Hunt25BLevel5.self).to(Hunt25BLevel5.init(next:))
            binder.bind(Hunt25BLevel6.self).to(Hunt25BLevel6.init(next:))
            binder.bind(Hunt25BLevel7.self).to(Hunt25BLevel7.init(next:))
            binder.bind(Hunt25BLevel8.self).to(Hunt25BLevel8.init(next:))
            binder.bind(Hunt25BLevel9.self).to(Hunt25BLevel9.init(next:))
            binder.bind(Hunt25BLevel10.self).to(Hunt25BLevel10.init(next:))
            binder.bind(Hunt25BLevel11.self).to(Hunt25BLevel11.init(next:))
            binder.bind(Hunt25BLevel12.self).to(Hunt25BLevel12.init(next:))
            binder.bind(Hunt25BLevel13.self).to(Hunt25BLevel13.init(next:))
            binder.bind(Hunt25BLevel14.self).to(Hunt25BLevel14.init(next:))
            binder.bind(Hunt25BLevel15.self).to(Hunt25BLevel15.init(next:))
            binder.bind(Hunt25BLevel16.self).to(Hunt25BLevel16.init(next:))
            binder.bind(Hunt25BLevel17.self).to(Hunt25BLevel17.init(next:))
            binder.bind(Hunt25BLevel18.self).to(Hunt25BLevel18.init(next:))
            binder.bind(Hunt25BLevel19.self).to(Hunt25BLevel19.init(next:))
            binder.bind(Hunt25BLevel20.self).to(Hunt25BLevel20.init(next:))
            binder.bind(Hunt25BLevel21.self).to(Hunt25BLevel21.init(next:))
            binder.bind(Hunt25BLevel22.self).to(Hunt25BLevel22.init(next:))
            binder.bind(Hunt25BLevel23.self).to(Hunt25BLevel23.init(next:))
            binder.bind(Hunt25BLevel24.self).to(Hunt25BLevel24.init(next:))
            binder.bind(Hunt25BLevel25.self).to(Hunt25BLevel25.init(next:))
            binder.bind(Hunt25BLevel26.self).to(Hunt25BLevel26.init(next:))
            binder.bind(Hunt25BLevel27.self).to(Hunt25BLevel27.init(next:))
            binder.bind(Hunt25BLevel28.self).to(Hunt25BLevel28.init(next:))
            binder.bind(Hunt25BLevel29.self).to(Hunt25BLevel29.init(next:))
            binder.bind(Hunt25BLevel30.self).to(Hunt25BLevel30.init(next:))
            binder.bind(Hunt25BLevel31.self).to(Hunt25BLevel31.init(next:))
            binder.bind(Hunt25BLevel32.self).to(Hunt25BLevel32.init(next:))
            binder.bind(Hunt25BLevel33.self).to(Hunt25BLevel33.init(next:))
            binder.bind(Hunt25BLevel34.self).to(Hunt25BLevel34.init(next:))
            binder.bind(Hunt25BLevel35.self).to(Hunt25BLevel35.init(next:))
            binder.bind(Hunt25BLevel36.self).to(Hunt25BLevel36.init(next:))
            binder.bind(Hunt25BLevel37.self).to(Hunt25BLevel37.init(next:))
            binder.bind(Hunt25BLevel38.self).to(Hunt25BLevel38.init(next:))
            binder.bind(Hunt25BLevel39.self).to(Hunt25BLevel39.init(next:))
            binder.bind(Hunt25BBase.self).to { (dep: Hunt25BDep) -> Hunt25BBase in Hunt25BSub(dep) }.in(scope)
            binder.bind(Hunt25BDep.self).to(Hunt25BDep.init)
            binder.bind(Hunt25BExtra.self).to(Hunt25BExtra.init)
        }
    }

    /// Checks that `base` is a `Hunt25BSub` injected exactly once.
    static func check(_ base: Hunt25BBase, _ comment: String) {
        let sub = base as? Hunt25BSub
        #expect(sub?.extra != nil, "not injected: \(comment)")
        #expect(sub?.sets == 1, "property set \(sub?.sets ?? -1) times: \(comment)")
        #expect(base.injections == 1, "didInjectDependencies ran \(base.injections) times: \(comment)")
    }
}

@Suite("Hunt 25B: property injection of subclass instances")
struct Hunt25BPropertyTests {
    @Test("every arity 1-14 injects the subclass's property exactly once", arguments: [Scope.transient, .singleton])
    func arities(scope: Scope) throws {
        let injector = try Injector(
            ClosureModule { binder in
                Hunt25BProperties.arityModule(binder)
                binder.bind(Hunt25BDep.self).to(Hunt25BDep.init).in(scope)
                binder.bind(Hunt25BExtra.self).to(Hunt25BExtra.init)
            })
        for arity in 1...14 {
            Hunt25BProperties.check(try injector.get(Hunt25BBase.self, named: "\(arity)"), "arity \(arity)")
        }
    }

    @Test(
        "a chain of 40 transient constructors ending in a subclass injects it once",
        arguments: [Scope.transient, .singleton])
    func deepChain(scope: Scope) throws {
        let injector = try Injector(Hunt25BProperties.chainModule(scope: scope))
        var level: Any = try injector.get(Hunt25BLevel0.self)
        for _ in 0..<40 {
            level = Mirror(reflecting: level).children.first { $0.label == "next" }?.value ?? level
        }
        guard let base = level as? Hunt25BBase else {
            Issue.record("the chain's end is \(type(of: level))")
            return
        }
        Hunt25BProperties.check(base, "chain end, \(scope)")
        Hunt25BProperties.check(try injector.get(Hunt25BBase.self), "direct, \(scope)")
    }

    @Test("async resolution of the chain injects the subclass once")
    func asyncChain() async throws {
        let injector = try Injector(Hunt25BProperties.chainModule(scope: .transient))
        let base = try await injector.get(Hunt25BBase.self)
        Hunt25BProperties.check(base, "async")
        let top = try await injector.get(Hunt25BLevel30.self)
        Hunt25BProperties.check(top.next.next.next.next.next.next.next.next.next.next, "async chain")
    }

    @Test("a scoped subclass instance is injected once per scope")
    func scoped() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt25BBase.self).to { (dep: Hunt25BDep) -> Hunt25BBase in Hunt25BSub(dep) }.in(.scoped)
                binder.bind(Hunt25BDep.self).to(Hunt25BDep.init)
                binder.bind(Hunt25BExtra.self).to(Hunt25BExtra.init)
            })
        let scope = injector.makeScope()
        let first = try scope.syncGet(Hunt25BBase.self)
        let again = try scope.syncGet(Hunt25BBase.self)
        #expect(first === again)
        Hunt25BProperties.check(first, "scoped")
        try scope.syncClose()
    }

    @Test("a subclass's unbound injected property fails notBound with the full path")
    func missing() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Hunt25BBase.self).to { (_: Hunt25BDep) -> Hunt25BBase in Hunt25BSubMissing() }
                binder.bind(Hunt25BLevel39.self).to(Hunt25BLevel39.init(next:))
                binder.bind(Hunt25BDep.self).to(Hunt25BDep.init)
            })
        let error = Hunt25BCatch.error { () throws(ProvisionError) in try injector.get(Hunt25BLevel39.self) }
        #expect(error?.code == .notBound, "\(String(describing: error))")
        #expect(
            error?.path == [
                BindingKey(Hunt25BLevel39.self), BindingKey(Hunt25BBase.self), BindingKey(Hunt25BUnbound.self),
            ],
            "\(String(describing: error))")
    }
}
