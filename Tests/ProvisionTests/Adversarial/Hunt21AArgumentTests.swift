import Testing

@testable import Provision

// Hunt 21 (A): resolve-time arguments given to bindings that take none (built or not), to a built
// singleton that takes others, and through delegations, children, overriding injectors, providers and
// lazy handles: argumentMismatch, as `Injector.get(_:named:arguments:)` documents it.

// MARK: - Fixtures

/// A value with a serial per build.
private final class H21AValue: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// A service provider that takes no arguments.
private struct H21AValueProvider: ServiceProvider {
    let builds: Counter
    func provide(_ resolver: Resolver, arguments: Void) throws -> H21AValue {
        H21AValue(serial: builds.increment())
    }
}

/// A self-declaring singleton.
final class Hunt21AArgumentJustInTime: Injectable, Sendable {
    static let injection = Injection(Hunt21AArgumentJustInTime.init).in(.singleton)
    init() {}
}

/// The kinds of binding that take no arguments.
enum Hunt21ANoArgumentKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case singleton, eagerSingleton, instance, transient, delegationTransient
    case delegationToInstance, providerTypeSingleton, providerTypeTransient, justInTime

    var testDescription: String { rawValue }
}

// MARK: - Tests

@Suite("Hunt 21A: resolve-time arguments", .timeLimit(.minutes(1)))
struct Hunt21AArgumentTests {
    private static func error<T>(_ body: () throws(ProvisionError) -> T) -> ProvisionError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    private static func injector(_ kind: Hunt21ANoArgumentKind) throws -> Injector {
        let builds = Counter()
        return try Injector(
            ClosureModule { binder in
                binder.bind(H21AValue.self, named: "target").to { H21AValue(serial: builds.increment()) }
                binder.bind(H21AValue.self, named: "single").to { H21AValue(serial: builds.increment()) }
                    .in(.singleton)
                binder.bind(H21AValue.self, named: "stored").toInstance(H21AValue(serial: 0))
                switch kind {
                case .singleton:
                    binder.bind(H21AValue.self).to { H21AValue(serial: builds.increment()) }.in(.singleton)
                case .eagerSingleton:
                    binder.bind(H21AValue.self).to { H21AValue(serial: builds.increment()) }.asEagerSingleton()
                case .instance:
                    binder.bind(H21AValue.self).toInstance(H21AValue(serial: 0))
                case .transient:
                    binder.bind(H21AValue.self).to { H21AValue(serial: builds.increment()) }
                case .delegationTransient:
                    binder.bind(H21AValue.self).to(binding: H21AValue.self, named: "single")
                case .delegationToInstance:
                    binder.bind(H21AValue.self).to(binding: H21AValue.self, named: "stored")
                case .providerTypeSingleton:
                    binder.bind(H21AValue.self).to(provider: H21AValueProvider(builds: builds)).in(.singleton)
                case .providerTypeTransient:
                    binder.bind(H21AValue.self).to(provider: H21AValueProvider(builds: builds))
                case .justInTime:
                    break
                }
            })
    }

    /// Arguments given to a binding that takes none: argumentMismatch, before its instance is built and
    /// after, through the injector, a provider and a provider's lazy handle.
    @Test(
        "arguments to a binding that takes none: argumentMismatch, built or not",
        arguments: Hunt21ANoArgumentKind.allCases)
    func noArguments(kind: Hunt21ANoArgumentKind) throws {
        let injector = try Self.injector(kind)
        func request() throws(ProvisionError) {
            if kind == .justInTime {
                _ = try injector.get(Hunt21AArgumentJustInTime.self)
            } else {
                _ = try injector.get(H21AValue.self)
            }
        }
        func withArguments() -> [ProvisionError?] {
            if kind == .justInTime {
                let provider = Self.error { () throws(ProvisionError) in
                    try injector.get(Provider<Hunt21AArgumentJustInTime>.self).get(arguments: 1)
                }
                return [
                    Self.error { () throws(ProvisionError) in
                        try injector.get(Hunt21AArgumentJustInTime.self, arguments: 1)
                    },
                    provider,
                ]
            }
            let provider = Self.error { () throws(ProvisionError) in
                try injector.get(Provider<H21AValue>.self).get(arguments: "x", 2)
            }
            let lazy = Self.error { () throws(ProvisionError) in
                try injector.get(Provider<H21AValue>.self).lazy(arguments: 3).value
            }
            return [
                Self.error { () throws(ProvisionError) in try injector.get(H21AValue.self, arguments: 1) }, provider,
                lazy,
            ]
        }
        let before = withArguments()
        try request()
        let after = withArguments()
        for (index, error) in before.enumerated() {
            #expect(error?.code == .argumentMismatch, "before, request \(index): \(String(describing: error))")
        }
        for (index, error) in after.enumerated() {
            #expect(error?.code == .argumentMismatch, "after the build, request \(index): \(String(describing: error))")
        }
    }

    /// A scoped binding that takes no arguments, asked with arguments through a provider made in a scope:
    /// argumentMismatch before and after the scope built its instance.
    @Test("arguments to a scoped binding through a scope's provider: argumentMismatch, built or not")
    func scopedNoArguments() async throws {
        let injector = try Injector(
            ClosureModule { binder in binder.bind(H21AValue.self).to { H21AValue(serial: 1) }.in(.scoped) })
        let scope = injector.makeScope()
        let provider = try await scope.get(Provider<H21AValue>.self)
        let before = Self.error { () throws(ProvisionError) in try provider.get(arguments: 1) }
        let built = try provider.get()
        let after = Self.error { () throws(ProvisionError) in try provider.get(arguments: 1) }
        let lazy = Self.error { () throws(ProvisionError) in try provider.lazy(arguments: 1).value }
        #expect(before?.code == .argumentMismatch, "\(String(describing: before))")
        #expect(after?.code == .argumentMismatch, "\(String(describing: after))")
        #expect(lazy?.code == .argumentMismatch, "\(String(describing: lazy))")
        #expect(try await scope.get(H21AValue.self) === built)
        try await scope.close()
    }

    /// A singleton with an `Int` argument, built once from 1: asked with an `Int` again it is that
    /// instance; asked with a `String`, or two arguments, argumentMismatch; the same through a provider
    /// and a lazy handle, and from a child.
    @Test("a built singleton with arguments asked with other argument types: argumentMismatch")
    func singletonWithArgumentsOtherTypes() throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21AValue.self).withArguments(Int.self).to { _, number in
                    builds.increment()
                    return H21AValue(serial: number)
                }.in(.singleton)
            })
        let first = try injector.get(H21AValue.self, arguments: 1)
        #expect(try injector.get(H21AValue.self, arguments: 2) === first)
        #expect(try injector.get(H21AValue.self) === first)
        let child = try injector.makeChild(ClosureModule { _ in })
        let provider = try injector.get(Provider<H21AValue>.self)
        let errors = [
            Self.error { () throws(ProvisionError) in try injector.get(H21AValue.self, arguments: "one") },
            Self.error { () throws(ProvisionError) in try injector.get(H21AValue.self, arguments: 1, 2) },
            Self.error { () throws(ProvisionError) in try provider.get(arguments: "one") },
            Self.error { () throws(ProvisionError) in try provider.lazy(arguments: 1.5).value },
            Self.error { () throws(ProvisionError) in try child.get(H21AValue.self, arguments: "one") },
        ]
        for (index, error) in errors.enumerated() {
            #expect(error?.code == .argumentMismatch, "request \(index): \(String(describing: error))")
        }
        #expect(first.serial == 1)
        #expect(builds.value == 1)
    }

    /// Found by hunt 21A, fixed: a singleton delegation (`to(binding:)` in `.singleton`) to a binding that takes
    /// no arguments answers a request with arguments with its instance once it is built (before the
    /// build the same request is argumentMismatch).
    @Test("a built singleton delegation to a binding that takes none, asked with arguments: argumentMismatch")
    func builtDelegationSingletonTakesNoArguments() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21AValue.self, named: "target").to { H21AValue(serial: 1) }
                binder.bind(H21AValue.self).to(binding: H21AValue.self, named: "target").in(.singleton)
            })
        let before = Self.error { () throws(ProvisionError) in try injector.get(H21AValue.self, arguments: 1) }
        _ = try injector.get(H21AValue.self)
        let after = Self.error { () throws(ProvisionError) in try injector.get(H21AValue.self, arguments: 1) }
        #expect(before?.code == .argumentMismatch, "\(String(describing: before))")
        #expect(after?.code == .argumentMismatch, "\(String(describing: after))")
    }

    /// Found by hunt 21A, fixed: a singleton delegation to a binding that takes an `Int`, built from 1, answers a
    /// request with a `String` with its instance (before the build the same request is argumentMismatch:
    /// the target receives the arguments, and takes others).
    @Test("a built singleton delegation to an argument binding asked with other types: argumentMismatch")
    func delegationSingletonOtherTypes() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21AValue.self, named: "target").withArguments(Int.self).to { _, number in
                    H21AValue(serial: number)
                }
                binder.bind(H21AValue.self).to(binding: H21AValue.self, named: "target").in(.singleton)
            })
        let before = Self.error { () throws(ProvisionError) in try injector.get(H21AValue.self, arguments: "one") }
        let built = try injector.get(H21AValue.self, arguments: 1)
        let after = Self.error { () throws(ProvisionError) in try injector.get(H21AValue.self, arguments: "one") }
        #expect(before?.code == .argumentMismatch, "\(String(describing: before))")
        #expect(after?.code == .argumentMismatch, "\(String(describing: after))")
        #expect(try injector.get(H21AValue.self, arguments: 7) === built)
        #expect(built.serial == 1)
    }

    /// Through a child and an overriding injector: arguments to the parent's (original's) built
    /// singleton, instance and just-in-time singleton, which take none: argumentMismatch.
    @Test("arguments through a child and an overriding injector to bindings that take none: argumentMismatch")
    func throughDerivedInjectors() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(H21AValue.self).to { H21AValue(serial: 1) }.in(.singleton)
                binder.bind(H21AValue.self, named: "stored").toInstance(H21AValue(serial: 0))
                binder.bind(Config.self).toInstance(Config(port: 1))
            })
        _ = try parent.get(H21AValue.self)
        _ = try parent.get(Hunt21AArgumentJustInTime.self)
        let child = try parent.makeChild(ClosureModule { _ in })
        let overriding = try parent.overriding { binder in binder.bind(Config.self).toInstance(Config(port: 2)) }
        for injector in [child, overriding] {
            let errors = [
                Self.error { () throws(ProvisionError) in try injector.get(H21AValue.self, arguments: 1) },
                Self.error { () throws(ProvisionError) in
                    try injector.get(H21AValue.self, named: "stored", arguments: 1)
                },
                Self.error { () throws(ProvisionError) in try injector.get(Hunt21AArgumentJustInTime.self, arguments: 1)
                },
                Self.error { () throws(ProvisionError) in try injector.get(Config.self, arguments: 1) },
                Self.error { () throws(ProvisionError) in try injector.get(Provider<H21AValue>.self).get(arguments: 1)
                },
            ]
            for (index, error) in errors.enumerated() {
                #expect(error?.code == .argumentMismatch, "request \(index): \(String(describing: error))")
            }
        }
    }

    /// A named singleton with arguments built in the parent from a child's request; the overriding
    /// injector's replacement with other argument types: each answers its own types only.
    @Test("an overriding injector replacing a singleton with arguments by one with other types")
    func overridingArgumentTypes() throws {
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(H21AValue.self).withArguments(Int.self).to { _, number in H21AValue(serial: number) }
                    .in(.singleton)
            })
        let kept = try original.get(H21AValue.self, arguments: 1)
        let replaced = try original.overriding { binder in
            binder.bind(H21AValue.self).withArguments(String.self).to { _, text in H21AValue(serial: text.count) }
                .in(.singleton)
        }
        let fresh = try replaced.get(H21AValue.self, arguments: "four")
        #expect(fresh.serial == 4)
        let wrong = Self.error { () throws(ProvisionError) in try replaced.get(H21AValue.self, arguments: 5.5) }
        #expect(wrong?.code == .argumentMismatch, "\(String(describing: wrong))")
        let wrongOriginal = Self.error { () throws(ProvisionError) in try original.get(H21AValue.self, arguments: "x") }
        #expect(wrongOriginal?.code == .argumentMismatch, "\(String(describing: wrongOriginal))")
        #expect(try original.get(H21AValue.self, arguments: 2) === kept)
    }

    /// Found by hunt 21A, fixed: a scoped delegation (`to(binding:)` in `.scoped`) to a binding with an
    /// `Int` argument was neither refused (a binding with arguments "can't be scoped": invalidLifecycle)
    /// nor one instance per scope: each request with arguments through the scope built a new instance.
    /// A request with arguments is now refused with invalidLifecycle.
    @Test("a scoped delegation to an argument binding: refused, or one instance per scope")
    func scopedDelegationWithArguments() async throws {
        let builds = Counter()
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    binder.bind(H21AValue.self, named: "target").withArguments(Int.self).to { _, number in
                        builds.increment()
                        return H21AValue(serial: number)
                    }
                    binder.bind(H21AValue.self).to(binding: H21AValue.self, named: "target").in(.scoped)
                })
        }
        guard case .success(let injector) = creation else {
            #expect(creation.hunt5Error?.code == .invalidLifecycle, "\(creation)")
            return
        }
        let scope = injector.makeScope()
        let provider = try await scope.get(Provider<H21AValue>.self)
        // Refused when requested with arguments (whether the target takes them is known only then),
        // before anything is built; a second request too.
        for number in 1...2 {
            let refused = Self.error { () throws(ProvisionError) in try provider.get(arguments: number) }
            #expect(refused?.code == .invalidLifecycle, "\(String(describing: refused))")
            #expect(refused?.message.contains("scoped") == true)
        }
        #expect(builds.value == 0)
        try await scope.close()
    }

    /// Arguments given to keys the injector provides itself: a provider, an optional and a multibound
    /// list take no arguments: argumentMismatch.
    @Test("arguments to a Provider, an optional and a multibound list key: argumentMismatch")
    func syntheticKeys() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21AValue.self).to { H21AValue(serial: 1) }
                binder.multibind(Config.self).toInstance(Config(port: 1))
            })
        let errors = [
            Self.error { () throws(ProvisionError) in try injector.get(Provider<H21AValue>.self, arguments: 1) },
            Self.error { () throws(ProvisionError) in try injector.get(H21AValue?.self, arguments: 1) },
            Self.error { () throws(ProvisionError) in try injector.get([Config].self, arguments: 1) },
        ]
        for (index, error) in errors.enumerated() {
            #expect(error?.code == .argumentMismatch, "request \(index): \(String(describing: error))")
        }
    }
}
