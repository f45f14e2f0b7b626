import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A protocol nothing may multibind.
protocol Hunt24AHook: Sendable {
    var label: String { get }
}

/// A hook.
struct Hunt24ANamedHook: Hunt24AHook {
    let label: String
}

/// Takes an optional list of hooks.
struct Hunt24AOptionalHookHost: Sendable {
    let hooks: [any Hunt24AHook]?
}

/// A named leaf.
struct Hunt24AGear: Sendable {
    let label: String
}

/// Takes an optional gear and an optional existential.
struct Hunt24AOptionalHost: Sendable {
    let gear: Hunt24AGear?
    let hook: (any Hunt24AHook)?
}

// MARK: - Tests

@Suite("Hunt 24A: optionals of lists, names and handles", .timeLimit(.minutes(2)))
struct Hunt24AOptionalTests {
    @Test("[T]? is nil when nothing is multibound: validation passes and the parameter is nil")
    func optionalEmptyList() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AOptionalHookHost.self).to(Hunt24AOptionalHookHost.init(hooks:))
            })
        #expect(try injector.syncGet(Hunt24AOptionalHookHost.self).hooks == nil)
        #expect(try injector.syncGet([any Hunt24AHook]?.self) == nil)
    }

    @Test("[T]? holds the elements when something is multibound")
    func optionalFullList() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt24AHook).self).toInstance(Hunt24ANamedHook(label: "a"))
                binder.multibind((any Hunt24AHook).self).toInstance(Hunt24ANamedHook(label: "b"))
                binder.bind(Hunt24AOptionalHookHost.self).to(Hunt24AOptionalHookHost.init(hooks:))
            })
        #expect(try injector.syncGet(Hunt24AOptionalHookHost.self).hooks?.map(\.label) == ["a", "b"])
    }

    @Test("a named optional never falls back to the unnamed binding")
    func namedOptional() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AGear.self).toInstance(Hunt24AGear(label: "unnamed"))
                binder.bind(Hunt24AGear.self, named: "spare").toInstance(Hunt24AGear(label: "spare"))
            })
        #expect(try injector.syncGet(Hunt24AGear?.self, named: "missing") == nil)
        #expect(try injector.syncGet(Hunt24AGear?.self, named: "spare")?.label == "spare")
        #expect(try injector.syncGet(Hunt24AGear?.self)?.label == "unnamed")
    }

    @Test("named handles resolve the named binding and never fall back")
    func namedHandles() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AGear.self).toInstance(Hunt24AGear(label: "unnamed"))
                binder.bind(Hunt24AGear.self, named: "spare").toInstance(Hunt24AGear(label: "spare"))
            })
        let spare = try injector.syncGet(Provider<Hunt24AGear>.self, named: "spare")
        #expect(try spare.get().label == "spare")
        #expect(spare.providedKey == BindingKey(Hunt24AGear.self, named: "spare"))
        let lazy = try injector.syncGet(Lazy<Hunt24AGear>.self, named: "spare")
        #expect(try lazy.value.label == "spare")
        let missing = try? injector.syncGet(Provider<Hunt24AGear>.self, named: "missing")
        if let missing {
            let error = #expect(throws: ProvisionError.self) { try missing.get() }
            #expect(error?.code == .notBound)
        }
    }

    @Test("optional parameters: nil when unbound, the instance when bound later by install")
    func optionalParametersAndInstall() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AOptionalHost.self).to(Hunt24AOptionalHost.init(gear:hook:))
            })
        let before = try injector.syncGet(Hunt24AOptionalHost.self)
        #expect(before.gear == nil && before.hook == nil)
        try injector.install(
            ClosureModule { binder in
                binder.bind(Hunt24AGear.self).toInstance(Hunt24AGear(label: "late"))
                binder.bind((any Hunt24AHook).self).toInstance(Hunt24ANamedHook(label: "late hook"))
            })
        let after = try injector.syncGet(Hunt24AOptionalHost.self)
        #expect(after.gear?.label == "late")
        #expect(after.hook?.label == "late hook")
    }
}
