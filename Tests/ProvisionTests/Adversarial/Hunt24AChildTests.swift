import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// The configuration a parent and a child each bind.
struct Hunt24ASetting: Sendable {
    let owner: String
}

/// A plugin protocol, multibound.
protocol Hunt24APlugin: Sendable {
    var owner: String { get }
}

/// A transient plugin that reports the setting it was built with.
struct Hunt24ASettingPlugin: Hunt24APlugin {
    let owner: String
    init(setting: Hunt24ASetting) { owner = "setting:" + setting.owner }
}

/// A singleton plugin.
final class Hunt24ASingletonPlugin: Hunt24APlugin {
    let owner: String
    init(owner: String) { self.owner = owner }
}

/// A service injecting the whole collection.
struct Hunt24APluginHost: Sendable {
    let plugins: [any Hunt24APlugin]
}

// MARK: - Tests

@Suite("Hunt 24A: child injectors and multibindings", .timeLimit(.minutes(2)))
struct Hunt24AChildTests {
    static func parent() throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24ASetting.self).toInstance(Hunt24ASetting(owner: "parent"))
                binder.multibind((any Hunt24APlugin).self).to(Hunt24ASettingPlugin.init(setting:))
                binder.multibind((any Hunt24APlugin).self).to { _ in Hunt24ASingletonPlugin(owner: "parent") }
                    .in(.singleton)
            })
    }

    static func child(of parent: Injector) throws -> Injector {
        try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt24ASetting.self).toInstance(Hunt24ASetting(owner: "child"))
                binder.multibind((any Hunt24APlugin).self).to(Hunt24ASettingPlugin.init(setting:))
                binder.bind(Hunt24APluginHost.self).to(Hunt24APluginHost.init(plugins:))
            })
    }

    @Test("a child's collection: the parent's elements first, resolved in the parent, then the child's")
    func childCollection() throws {
        let parent = try Self.parent()
        let child = try Self.child(of: parent)
        let owners = try child.getAll((any Hunt24APlugin).self).map(\.owner)
        #expect(owners == ["setting:parent", "parent", "setting:child"])
        let host = try child.syncGet(Hunt24APluginHost.self)
        #expect(host.plugins.map(\.owner) == ["setting:parent", "parent", "setting:child"])
        #expect(try parent.getAll((any Hunt24APlugin).self).map(\.owner) == ["setting:parent", "parent"])
        let parentSingleton = try parent.getAll((any Hunt24APlugin).self)[1] as? Hunt24ASingletonPlugin
        let childSingleton = host.plugins[1] as? Hunt24ASingletonPlugin
        #expect(parentSingleton != nil && parentSingleton === childSingleton)
    }

    @Test("a grandchild's collection adds to its parent's, and the parent's to the root's")
    func grandchildCollection() throws {
        let root = try Self.parent()
        let child = try Self.child(of: root)
        let grandchild = try child.makeChild(
            ClosureModule { binder in
                binder.multibind((any Hunt24APlugin).self).to { _ in Hunt24ASingletonPlugin(owner: "grandchild") }
            })
        #expect(
            try grandchild.getAll((any Hunt24APlugin).self).map(\.owner)
                == ["setting:parent", "parent", "setting:child", "grandchild"])
        #expect(try child.getAll((any Hunt24APlugin).self).count == 3)
    }

    @Test("a child with no elements of its own serves its parent's collection, singletons shared")
    func childWithoutElements() throws {
        let parent = try Self.parent()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt24ASetting.self).toInstance(Hunt24ASetting(owner: "child"))
            })
        let fromChild = try child.getAll((any Hunt24APlugin).self)
        #expect(fromChild.map(\.owner) == ["setting:parent", "parent"])
        let fromParent = try parent.getAll((any Hunt24APlugin).self)
        #expect((fromChild[1] as? Hunt24ASingletonPlugin) === (fromParent[1] as? Hunt24ASingletonPlugin))
    }

    @Test("getAll of nothing is empty; a [T] parameter of nothing fails validation with emptyMultibinding")
    func emptyCollections() throws {
        let injector = try Injector()
        #expect(try injector.getAll((any Hunt24APlugin).self).isEmpty)
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt24APluginHost.self).to(Hunt24APluginHost.init(plugins:))
                })
        }
        #expect(error?.underlyingErrors.map(\.code) == [.emptyMultibinding])
    }
}
