import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 25B, part 2: a binding with arguments and no defaults hands plain requests to the key's first
// binding with defaults (Recipe+Arguments.swift, ArgumentVariants.swift); singletons with arguments
// raced from threads; variant keys named by their argument lists.

/// Built by the variants; says which one.
final class Hunt25BWidget: Sendable {
    let source: String
    init(_ source: String) { self.source = source }
}

/// Depends on the widget without arguments.
final class Hunt25BWidgetUser: Sendable {
    let widget: Hunt25BWidget
    init(widget: Hunt25BWidget) { self.widget = widget }
}

/// Two argument types that Swift tells apart and whose names read alike (both private, nested).
private enum Hunt25BLeft {
    struct Hunt25BOptions {}
}

private enum Hunt25BRight {
    struct Hunt25BOptions {}
}

@Suite("Hunt 25B: variants with and without defaults")
struct Hunt25BVariantTests {
    static let noDefaults = ClosureModule { binder in
        binder.bind(Hunt25BWidget.self).withArguments(String.self).to { _, text in Hunt25BWidget("string \(text)") }
        binder.bind(Hunt25BWidgetUser.self).to(Hunt25BWidgetUser.init(widget:))
    }

    static let withDefaults = ClosureModule { binder in
        binder.bind(Hunt25BWidget.self).withArguments(Int.self).to { _, number in Hunt25BWidget("int \(number)") }
            .defaults(7)
    }

    @Test("after an install, a plain request, a dependency, a Provider and a Lazy take the defaults")
    func installedDefaults() throws {
        let injector = try Injector.unvalidated(Self.noDefaults)
        let before = Hunt25BCatch.error { () throws(ProvisionError) in try injector.get(Hunt25BWidget.self) }
        #expect(before?.code == .argumentMismatch)
        #expect(before?.message.contains("declares no defaults") == true, "\(before?.message ?? "")")
        try injector.install(Self.withDefaults)
        #expect(try injector.get(Hunt25BWidget.self).source == "int 7")
        #expect(try injector.get(Hunt25BWidgetUser.self).widget.source == "int 7")
        #expect(try injector.get(Provider<Hunt25BWidget>.self).get().source == "int 7")
        #expect(try injector.get(Lazy<Hunt25BWidget>.self).value.source == "int 7")
        #expect(try injector.get(Hunt25BWidget.self, arguments: "a").source == "string a")
        #expect(try injector.get(Hunt25BWidget.self, arguments: 3).source == "int 3")
        #expect(try injector.get(Provider<Hunt25BWidget>.self).get(arguments: "b").source == "string b")
    }

    @Test("overriding over a binding without defaults: the new binding with defaults serves plain requests")
    func overridingDefaults() throws {
        let original = try Injector.unvalidated(Self.noDefaults)
        let derived = try original.overriding(
            ClosureModule { binder in
                binder.bind(Hunt25BWidget.self).withArguments(Double.self).to { _, value in
                    Hunt25BWidget("double \(value)")
                }
                binder.bind(Hunt25BWidget.self).withArguments(Int.self).to { _, number in
                    Hunt25BWidget("int \(number)")
                }.defaults(9)
            })
        #expect(try derived.get(Hunt25BWidget.self).source == "int 9")
        #expect(try derived.get(Hunt25BWidgetUser.self).widget.source == "int 9")
        #expect(try derived.get(Hunt25BWidget.self, arguments: "x").source == "string x")
        #expect(try derived.get(Hunt25BWidget.self, arguments: 1.5).source == "double 1.5")
        #expect(try derived.get(Hunt25BWidget.self, arguments: 2).source == "int 2")
        let original2 = Hunt25BCatch.error { () throws(ProvisionError) in try original.get(Hunt25BWidget.self) }
        #expect(original2?.code == .argumentMismatch)
    }

    /// Found by hunt 25B, fixed: the hand-off checks the path for its key without pushing it (`Recipe.arguments`).
    ///
    /// Recipe+Arguments.swift: a binding with arguments and no defaults hands a request without
    /// arguments to "the first binding of the key that declares defaults"; `argumentBindings`
    /// (Injector+Arguments.swift) counts "an ancestor's first argument list, stored under the plain key"
    /// among them, and the child's request with `4` does reach the parent's binding. ArgumentBindingBuilder:
    /// a plain request takes "the binding without arguments, or else the first one with defaults".
    ///
    /// What happens: the child's plain request throws `cycle` ("Hunt25BWidget depends on itself", path
    /// `Hunt25BWidget`), though no factory requests anything. The child's hand-off plan enters the plain
    /// key, then resolves the parent's binding, whose plan enters the same plain key (the parent's
    /// binding keeps the unrenamed key) and finds it on the path.
    @Test("a child's binding without defaults hands plain requests to its parent's binding with defaults")
    func childOverParentDefaults() throws {
        let parent = try Injector(Self.withDefaults)
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt25BWidget.self).withArguments(String.self).to { _, text in
                    Hunt25BWidget("child \(text)")
                }
            })
        let plain = Hunt25BCatch.error { () throws(ProvisionError) in try child.get(Hunt25BWidget.self) }
        #expect(plain == nil, "\(String(describing: plain))")
        #expect(try child.get(Hunt25BWidget.self, arguments: "c").source == "child c")
        #expect(try child.get(Hunt25BWidget.self, arguments: 4).source == "int 4")
    }

    /// Recipe+Arguments.swift: "A factory requesting its own key without arguments is a cycle, as it is
    /// for a binding with defaults."
    @Test(
        "the binding with defaults requesting its key is a cycle, asked plainly or with arguments",
        arguments: [Scope.transient, .singleton])
    func cycleThroughDefaults(scope: Scope) throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Hunt25BWidget.self).withArguments(String.self).to { _, text in Hunt25BWidget(text) }
                binder.bind(Hunt25BWidget.self).withArguments(Int.self).to { resolver, _ in
                    try resolver.get(Hunt25BWidget.self)
                }.defaults(1).in(scope)
            })
        let plain = Hunt25BCatch.error { () throws(ProvisionError) in try injector.get(Hunt25BWidget.self) }
        #expect(plain?.code == .cycle, "\(String(describing: plain))")
        let given = Hunt25BCatch.error { () throws(ProvisionError) in
            try injector.get(Hunt25BWidget.self, arguments: 5)
        }
        #expect(given?.code == .cycle, "\(String(describing: given))")
    }

    @Test("a binding without defaults requesting its own key is a cycle", arguments: [Scope.transient, .singleton])
    func selfRequest(scope: Scope) throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Hunt25BWidget.self).withArguments(String.self).to { resolver, _ in
                    try resolver.get(Hunt25BWidget.self)
                }.in(scope)
            })
        let error = Hunt25BCatch.error { () throws(ProvisionError) in
            try injector.get(Hunt25BWidget.self, arguments: "x")
        }
        #expect(error?.code == .cycle, "\(String(describing: error))")
    }

    @Test("a singleton served through defaults is one instance for plain requests and requests with arguments")
    func singletonThroughDefaults() throws {
        let builds = Counter()
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Hunt25BWidget.self).withArguments(String.self).to { _, text in Hunt25BWidget(text) }
                binder.bind(Hunt25BWidget.self).withArguments(Int.self).to { _, number in
                    builds.increment()
                    return Hunt25BWidget("int \(number)")
                }.defaults(1).in(.singleton)
            })
        let count = 16
        let barrier = Barrier(count: count)
        let results = Locked<[ObjectIdentifier]>([])
        let finished = runThreads(count) { index in
            barrier.arriveAndWait()
            let widget =
                index % 2 == 0
                ? try? injector.get(Hunt25BWidget.self) : try? injector.get(Hunt25BWidget.self, arguments: index)
            if let widget { results.withLock { $0.append(ObjectIdentifier(widget)) } }
        }
        #expect(finished)
        let ids = results.withLock { $0 }
        #expect(ids.count == count)
        #expect(Set(ids).count == 1)
        #expect(builds.value == 1)
    }

    /// Found by hunt 25B, fixed: a variant's key carries its factory type's identity beside the argument list's
    /// text (`ArgumentVariants`).
    ///
    /// ArgumentBindingBuilder.swift: "A type can be bound once per argument list"; two bindings of the
    /// same list are a duplicate. `Hunt25BLeft.Hunt25BOptions` and `Hunt25BRight.Hunt25BOptions` are two
    /// types, so two lists.
    ///
    /// What happens: creating the injector throws `duplicateBinding` ("Hunt25BWidget with arguments
    /// (Hunt25BOptions) is bound twice"). A variant's slot and key are made from the argument list's
    /// *text* (`ArgumentVariants.slot(of:)`, `key(_:signature:)`), and `TypeName.qualifiedName` prints a
    /// private or local type by its bare name, so the two lists read alike. (The same text would also
    /// send a request to the other type's variant.)
    @Test("two argument types whose names print alike are two argument lists")
    func alikeNames() throws {
        let created = Result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt25BWidget.self).withArguments(Hunt25BLeft.Hunt25BOptions.self).to { _, _ in
                        Hunt25BWidget("left")
                    }
                    binder.bind(Hunt25BWidget.self).withArguments(Hunt25BRight.Hunt25BOptions.self).to { _, _ in
                        Hunt25BWidget("right")
                    }
                })
        }
        switch created {
        case .success(let injector):
            #expect(try injector.get(Hunt25BWidget.self, arguments: Hunt25BLeft.Hunt25BOptions()).source == "left")
            #expect(try injector.get(Hunt25BWidget.self, arguments: Hunt25BRight.Hunt25BOptions()).source == "right")
        case .failure(let error):
            Issue.record("two distinct argument types were refused: \(error)")
        }
    }
}
