import Testing

@testable import Provision

/// Holds the grandparent's scoped instance; transient.
final class Hunt25AT1: Sendable {
    let scoped: Hunt25AScoped
    init(scoped: Hunt25AScoped) { self.scoped = scoped }
}

/// A transient over ``Hunt25AT1``.
final class Hunt25AT2: Sendable {
    let t1: Hunt25AT1
    init(t1: Hunt25AT1) { self.t1 = t1 }
}

/// A transient over ``Hunt25AT2``.
final class Hunt25AT3: Sendable {
    let t2: Hunt25AT2
    init(t2: Hunt25AT2) { self.t2 = t2 }
}

/// Bound by delegation.
protocol Hunt25AProto: Sendable {}
extension Hunt25AT2: Hunt25AProto {}

/// Singletons over the chain, each through another kind of dependency.
final class Hunt25AHoldT3: Sendable {
    let t3: Hunt25AT3
    init(t3: Hunt25AT3) { self.t3 = t3 }
}

final class Hunt25AHoldProvider: Sendable {
    let provider: Provider<Hunt25AT3>
    init(provider: Provider<Hunt25AT3>) { self.provider = provider }
}

final class Hunt25AHoldLazy: Sendable {
    let lazy: Lazy<Hunt25AT3>
    init(lazy: Lazy<Hunt25AT3>) { self.lazy = lazy }
}

final class Hunt25AHoldOptional: Sendable {
    let t3: Hunt25AT3?
    init(t3: Hunt25AT3?) { self.t3 = t3 }
}

final class Hunt25AHoldProto: Sendable {
    let proto: any Hunt25AProto
    init(proto: any Hunt25AProto) { self.proto = proto }
}

/// A multibound element; the one over ``Hunt25AT1`` reaches the scoped instance.
final class Hunt25AElement: Sendable {
    let t1: Hunt25AT1?
    init(t1: Hunt25AT1) { self.t1 = t1 }
    init() { self.t1 = nil }
}

final class Hunt25AHoldList: Sendable {
    let list: [Hunt25AElement]
    init(list: [Hunt25AElement]) { self.list = list }
}

/// What a child's creation reports, and what the walk without seals finds.
enum Hunt25AReference {
    static func describe(_ errors: [ProvisionError]) -> [String] {
        errors.map { "\($0.code): \($0.pathDescription)" }
    }

    /// The problems the walk without seals (`ancestorsReachedOnly: true`) finds for a child with `modules`.
    static func reference(parent: Injector, _ modules: [any Module]) throws -> [String] {
        let reference = try Injector(
            modules: modules, configuration: Injector.Configuration(validatesOnCreation: false), parent: parent)
        return describe(
            GraphValidator(BindingGraph(injector: reference, ancestorsReachedOnly: true)).findings().map(\.error))
    }

    /// The problems the child's creation reports.
    static func creation(parent: Injector, _ modules: [any Module]) -> [String] {
        do {
            _ = try Injector(modules: modules, configuration: parent.configuration, parent: parent)
            return []
        } catch {
            return describe(error.code == .validationFailed ? error.underlyingErrors : [error])
        }
    }

    /// Grandparent (scoped, T1), parent (T2), and a middle injector (T3): each validated and sealed.
    static func chain() throws -> Injector {
        let grandparent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt25AScoped.self).to(Hunt25AScoped.init).in(.scoped)
                binder.bind(Hunt25AT1.self).to(Hunt25AT1.init(scoped:))
            })
        let parent = try grandparent.makeChild(ClosureModule { $0.bind(Hunt25AT2.self).to(Hunt25AT2.init(t1:)) })
        return try parent.makeChild(ClosureModule { $0.bind(Hunt25AT3.self).to(Hunt25AT3.init(t2:)) })
    }
}

@Suite("Hunt 25A: captive dependencies below sealed ancestors")
struct Hunt25ACaptiveChainTests {
    private let path = "Hunt25AT3 -> Hunt25AT2 -> Hunt25AT1 -> Hunt25AScoped"

    @Test("a singleton over a transient three sealed ancestors up the chain")
    func throughThreeLevels() throws {
        let middle = try Hunt25AReference.chain()
        #expect(middle.currentSeal?.transientsReachingScoped == [BindingKey(Hunt25AT3.self)])
        let module: [any Module] = [
            ClosureModule { $0.bind(Hunt25AHoldT3.self).to(Hunt25AHoldT3.init(t3:)).in(.singleton) }
        ]
        let reference = try Hunt25AReference.reference(parent: middle, module)
        #expect(reference == ["captive dependency: Hunt25AHoldT3 -> \(path)"])
        #expect(Hunt25AReference.creation(parent: middle, module) == reference)
    }

    @Test("a singleton over a Provider, a Lazy or an optional of the chain's transient")
    func throughHandlesAndOptionals() throws {
        let middle = try Hunt25AReference.chain()
        let modules: [[any Module]] = [
            [
                ClosureModule {
                    $0.bind(Hunt25AHoldProvider.self).to(Hunt25AHoldProvider.init(provider:)).in(.singleton)
                }
            ],
            [ClosureModule { $0.bind(Hunt25AHoldLazy.self).to(Hunt25AHoldLazy.init(lazy:)).in(.singleton) }],
            [ClosureModule { $0.bind(Hunt25AHoldOptional.self).to(Hunt25AHoldOptional.init(t3:)).in(.singleton) }],
        ]
        for module in modules {
            let reference = try Hunt25AReference.reference(parent: middle, module)
            #expect(reference.count == 1)
            #expect(reference.first?.hasPrefix("captive dependency") == true)
            #expect(Hunt25AReference.creation(parent: middle, module) == reference)
        }
    }

    @Test("a singleton over a parent's delegation to a grandparent's transient that reaches a scoped binding")
    func throughDelegation() throws {
        let middle = try Hunt25AReference.chain()
        let child = try middle.makeChild(
            ClosureModule { $0.bind((any Hunt25AProto).self).to(binding: Hunt25AT2.self) })
        let module: [any Module] = [
            ClosureModule { $0.bind(Hunt25AHoldProto.self).to(Hunt25AHoldProto.init(proto:)).in(.singleton) }
        ]
        let reference = try Hunt25AReference.reference(parent: child, module)
        #expect(reference.count == 1)
        #expect(Hunt25AReference.creation(parent: child, module) == reference)
    }

    @Test("a singleton over a collection whose grandparent element reaches a scoped binding, two levels down")
    func throughInheritedCollection() throws {
        let grandparent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt25AScoped.self).to(Hunt25AScoped.init).in(.scoped)
                binder.bind(Hunt25AT1.self).to(Hunt25AT1.init(scoped:))
                binder.multibind(Hunt25AElement.self).to(Hunt25AElement.init(t1:))
            })
        let parent = try grandparent.makeChild(
            ClosureModule { $0.multibind(Hunt25AElement.self).to { Hunt25AElement() } })
        let middle = try parent.makeChild(ClosureModule { $0.multibind(Hunt25AElement.self).to { Hunt25AElement() } })
        let module: [any Module] = [
            ClosureModule { binder in
                binder.multibind(Hunt25AElement.self).to { Hunt25AElement() }
                binder.bind(Hunt25AHoldList.self).to(Hunt25AHoldList.init(list:)).in(.singleton)
            }
        ]
        let reference = try Hunt25AReference.reference(parent: middle, module)
        #expect(reference.count == 1)
        #expect(Hunt25AReference.creation(parent: middle, module) == reference)
    }

    @Test("a singleton over a collection whose middle injector's element reaches a scoped binding")
    func throughMiddleElement() throws {
        let grandparent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt25AScoped.self).to(Hunt25AScoped.init).in(.scoped)
                binder.bind(Hunt25AT1.self).to(Hunt25AT1.init(scoped:))
                binder.multibind(Hunt25AElement.self).to { Hunt25AElement() }
            })
        let parent = try grandparent.makeChild(
            ClosureModule { $0.multibind(Hunt25AElement.self).to(Hunt25AElement.init(t1:)) })
        let middle = try parent.makeChild()
        for module: [any Module] in [
            [ClosureModule { $0.bind(Hunt25AHoldList.self).to(Hunt25AHoldList.init(list:)).in(.singleton) }],
            [
                ClosureModule { binder in
                    binder.multibind(Hunt25AElement.self).to { Hunt25AElement() }
                    binder.bind(Hunt25AHoldList.self).to(Hunt25AHoldList.init(list:)).in(.singleton)
                }
            ],
        ] {
            let reference = try Hunt25AReference.reference(parent: middle, module)
            #expect(reference.count == 1)
            #expect(Hunt25AReference.creation(parent: middle, module) == reference)
        }
    }

    @Test("a singleton over a parent's transient over a seed")
    func throughSeed() throws {
        let grandparent = try Injector(ClosureModule { $0.bind(Hunt25AScoped.self).toSeed() })
        let parent = try grandparent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt25AT1.self).to(Hunt25AT1.init(scoped:))
                binder.bind(Hunt25AT2.self).to(Hunt25AT2.init(t1:))
            })
        let module: [any Module] = [
            ClosureModule {
                $0.bind(Hunt25AHoldProto.self).to { (t2: Hunt25AT2) in Hunt25AHoldProto(proto: t2) }.in(.singleton)
            }
        ]
        let reference = try Hunt25AReference.reference(parent: parent, module)
        #expect(reference.count == 1)
        #expect(Hunt25AReference.creation(parent: parent, module) == reference)
    }

    @Test("a valid child below the chain: a scoped holder, and a singleton over a plain parent transient")
    func validChildPasses() throws {
        let middle = try Hunt25AReference.chain()
        let module: [any Module] = [
            ClosureModule { binder in
                binder.bind(Hunt25AHoldT3.self).to(Hunt25AHoldT3.init(t3:)).in(.scoped)
                binder.bind(Hunt25AHoldList.self).to { Hunt25AHoldList(list: []) }.in(.singleton)
            }
        ]
        #expect(try Hunt25AReference.reference(parent: middle, module) == [])
        #expect(Hunt25AReference.creation(parent: middle, module) == [])
    }

    @Test("an override making a collection element's dependency scoped: the derived injector's singleton is captive")
    func overridingTouchesElement() throws {
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt25AScoped.self).to(Hunt25AScoped.init)
                binder.bind(Hunt25AT1.self).to(Hunt25AT1.init(scoped:))
                binder.multibind(Hunt25AElement.self).to { Hunt25AElement() }
                binder.multibind(Hunt25AElement.self).to(Hunt25AElement.init(t1:))
                binder.bind(Hunt25AHoldList.self).to(Hunt25AHoldList.init(list:)).in(.singleton)
            })
        let override = ClosureModule { $0.bind(Hunt25AScoped.self).to(Hunt25AScoped.init).in(.scoped) }
        let error = #expect(throws: ProvisionError.self) { try original.overriding(override) }
        #expect(error?.underlyingErrors.map(\.code) == [.captiveDependency])
        #expect(
            error?.underlyingErrors.first?.pathDescription
                == "Hunt25AHoldList -> [Hunt25AElement] -> Hunt25AElement (multibinding element) -> Hunt25AT1 -> Hunt25AScoped"
        )
    }
}
