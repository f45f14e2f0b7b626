import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 20A, part 5: resolve-time arguments the way users get them wrong. Wrong counts and types (the
// error names both signatures in Swift syntax), arguments given to bindings that take none, conversions
// to declared optionals, superclasses and protocols, argument bindings reached through children and
// overriding injectors, arguments with singletons, and argument lists longer than the fixed arities.

// MARK: - Fixtures

protocol Hunt20AShape: Sendable {
    var sides: Int { get }
}

struct Hunt20ASquare: Hunt20AShape {
    var sides: Int { 4 }
}

class Hunt20ABase: @unchecked Sendable {
    var kind: String { "base" }
}

final class Hunt20ADerived: Hunt20ABase, @unchecked Sendable {
    override var kind: String { "derived" }
}

final class Hunt20AOrder: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// Built from declared (Int?, [String], any Hunt20AShape, [String: Int]) arguments.
final class Hunt20ASwiftTyped: Sendable {
    let summary: String
    init(_ summary: String) { self.summary = summary }
}

/// Built from (String?, Hunt20ABase, any Hunt20AShape).
final class Hunt20AConverted: Sendable {
    let name: String?
    let kind: String
    let sides: Int
    init(name: String?, kind: String, sides: Int) {
        self.name = name
        self.kind = kind
        self.sides = sides
    }
}

/// Built from fourteen arguments.
final class Hunt20AWideArguments: Sendable {
    let total: Int
    init(total: Int) { self.total = total }
}

final class Hunt20AArgumentMissing: Sendable {}

final class Hunt20AArgumentUser: Sendable {
    let argued: Hunt20AArgued
    init(argued: Hunt20AArgued) { self.argued = argued }
}

// MARK: - Tests

@Suite("Hunt 20A: resolve-time arguments", .timeLimit(.minutes(1)))
struct Hunt20AArgumentTests {
    static func error<T>(_ body: () throws(ProvisionError) -> T) -> ProvisionError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// Found by hunt 20A, fixed: a request with arguments for a built singleton (or an instance) that takes no
    /// arguments returns the instance instead of throwing argumentMismatch, as it does before the build.
    @Test("arguments given to a singleton that takes none: argumentMismatch before and after it is built")
    func argumentsToPlainSingleton() throws {
        let live = Hunt20ALive()
        let injector = try Injector(
            ClosureModule { binder in binder.bind(Hunt20ASingle.self).to { Hunt20ASingle(live: live) }.in(.singleton) })
        let before = Self.error { () throws(ProvisionError) in try injector.get(Hunt20ASingle.self, arguments: 5) }
        #expect(before?.code == .argumentMismatch, "\(String(describing: before))")
        _ = try injector.get(Hunt20ASingle.self)
        let after = Self.error { () throws(ProvisionError) in try injector.get(Hunt20ASingle.self, arguments: 5) }
        #expect(
            after?.code == .argumentMismatch,
            "the same request, once the singleton is built: \(String(describing: after))")
    }

    /// Found by hunt 20A, fixed: a request with arguments for an instance binding (which takes none) returns the
    /// instance instead of throwing argumentMismatch.
    @Test("arguments given to an instance binding: argumentMismatch")
    func argumentsToInstance() throws {
        let injector = try Injector(
            ClosureModule { binder in binder.bind(Hunt20AConfig.self).toInstance(Hunt20AConfig(port: 1)) })
        let error = Self.error { () throws(ProvisionError) in try injector.get(Hunt20AConfig.self, arguments: "x", 2) }
        #expect(error?.code == .argumentMismatch, "\(String(describing: error))")
    }

    @Test("wrong types and counts name both argument lists in Swift syntax: Int?, [String], any P, [String: Int]")
    func swiftSyntaxSignatures() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20ASwiftTyped.self)
                    .withArguments(Int?.self, [String].self, (any Hunt20AShape).self, [String: Int].self)
                    .to { _, number, names, shape, table in
                        Hunt20ASwiftTyped("\(number ?? -1) \(names) \(shape.sides) \(table.count)")
                    }
            })
        #expect(
            try injector.get(Hunt20ASwiftTyped.self, arguments: 3, ["a"], Hunt20ASquare(), ["k": 1]).summary
                == "3 [\"a\"] 4 1")
        let wrongTypes = Self.error { () throws(ProvisionError) in
            try injector.get(Hunt20ASwiftTyped.self, arguments: "3", [1], 2.5, [1: "k"])
        }
        let tooFew = Self.error { () throws(ProvisionError) in try injector.get(Hunt20ASwiftTyped.self, arguments: 3) }
        let tooMany = Self.error { () throws(ProvisionError) in
            try injector.get(Hunt20ASwiftTyped.self, arguments: 3, ["a"], Hunt20ASquare(), ["k": 1], 5)
        }
        let declared = "(Int?, [String], any Hunt20AShape, [String: Int])"
        for (error, given) in [
            (wrongTypes, "(String, [Int], Double, [Int: String])"), (tooFew, "(Int)"),
            (tooMany, "(Int, [String], Hunt20ASquare, [String: Int], Int)"),
        ] {
            #expect(error?.code == .argumentMismatch)
            #expect(error?.key == BindingKey(Hunt20ASwiftTyped.self))
            let message = error?.message ?? ""
            #expect(message.contains(declared), "\(message)")
            #expect(message.contains(given), "\(message)")
            #expect(
                !message.contains("Optional<") && !message.contains("Array<") && !message.contains("Swift."),
                "\(message)")
        }
    }

    @Test("arguments convert as a call would: a value to an optional, a subclass, a protocol; nil to an optional")
    func conversions() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20AConverted.self)
                    .withArguments(String?.self, Hunt20ABase.self, (any Hunt20AShape).self)
                    .to { _, name, base, shape in Hunt20AConverted(name: name, kind: base.kind, sides: shape.sides) }
            })
        let converted = try injector.get(Hunt20AConverted.self, arguments: "x", Hunt20ADerived(), Hunt20ASquare())
        #expect(converted.name == "x" && converted.kind == "derived" && converted.sides == 4)
        let exact = try injector.get(
            Hunt20AConverted.self, arguments: String?.none, Hunt20ABase(), Hunt20ASquare() as any Hunt20AShape)
        #expect(exact.name == nil && exact.kind == "base")
        // Through a provider, the same conversions.
        let provider = try injector.get(Provider<Hunt20AConverted>.self)
        #expect(try provider.get(arguments: "y", Hunt20ADerived(), Hunt20ASquare()).name == "y")
        #expect(try provider.lazy(arguments: "z", Hunt20ADerived(), Hunt20ASquare()).value.name == "z")
    }

    @Test("arguments that convert to two declared lists: argumentMismatch naming both; exact types pick one")
    func ambiguousConversion() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20AOrder.self).withArguments(String?.self).to { _, label in
                    Hunt20AOrder(label: "optional \(label ?? "nil")")
                }
                binder.bind(Hunt20AOrder.self).withArguments((any CustomStringConvertible).self).to { _, label in
                    Hunt20AOrder(label: "describable \(label)")
                }
            })
        #expect(try injector.get(Hunt20AOrder.self, arguments: String?.some("a")).label == "optional a")
        #expect(
            try injector.get(Hunt20AOrder.self, arguments: "b" as any CustomStringConvertible).label == "describable b")
        let error = Self.error { () throws(ProvisionError) in try injector.get(Hunt20AOrder.self, arguments: "c") }
        #expect(error?.code == .argumentMismatch, "\(String(describing: error))")
        #expect(error?.message.contains("(String?)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("(any CustomStringConvertible)") == true, "\(error?.message ?? "")")
    }

    @Test("fourteen arguments (past the fixed arities): built, and the 14th of a wrong type is argumentMismatch")
    func fourteenArguments() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20AWideArguments.self)
                    .withArguments(
                        Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self,
                        Int.self, Int.self, Int.self, Int.self, String.self
                    )
                    .to { _, a, b, c, d, e, f, g, h, i, j, k, l, m, n in
                        Hunt20AWideArguments(total: a + b + c + d + e + f + g + h + i + j + k + l + m + n.count)
                    }
                    .defaults(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "abc")
            })
        #expect(
            try injector.get(Hunt20AWideArguments.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "ab")
                .total
                == 93)
        #expect(try injector.get(Hunt20AWideArguments.self).total == 16)
        let error = Self.error { () throws(ProvisionError) in
            try injector.get(Hunt20AWideArguments.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
        }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.message.contains("Int, String)") == true, "\(error?.message ?? "")")
    }

    @Test(
        "an argument binding of the parent through a child: with arguments, with defaults as a dependency, as a singleton"
    )
    func argumentsThroughChild() throws {
        let builds = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20AArgued.self).withArguments(Int.self).to { _, number in Hunt20AArgued(number: number)
                }
                .defaults(7)
                binder.bind(Hunt20AOrder.self).withArguments(String.self).to { _, label in
                    builds.increment()
                    return Hunt20AOrder(label: label)
                }.in(.singleton)
            })
        let child = try parent.makeChild(
            ClosureModule { binder in binder.bind(Hunt20AArgumentUser.self).to(Hunt20AArgumentUser.init(argued:)) })
        #expect(try child.get(Hunt20AArgued.self, arguments: 3).number == 3)
        #expect(try child.get(Hunt20AArgumentUser.self).argued.number == 7)
        #expect(try child.get(Provider<Hunt20AArgued>.self).get(arguments: 4).number == 4)
        let fromChild = try child.get(Hunt20AOrder.self, arguments: "first")
        #expect(try parent.get(Hunt20AOrder.self, arguments: "second") === fromChild)
        #expect(fromChild.label == "first")
        #expect(builds.value == 1)
        let wrong = Self.error { () throws(ProvisionError) in try child.get(Hunt20AArgued.self, arguments: "three") }
        #expect(wrong?.code == .argumentMismatch, "\(String(describing: wrong))")
    }

    @Test(
        "an overriding injector replacing an argument binding: its factory there, the original's elsewhere; other argument singletons shared"
    )
    func argumentsOverridden() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20AArgued.self).withArguments(Int.self).to { _, number in Hunt20AArgued(number: number)
                }
                // Declared: it reaches nothing (an undeclared closure may reach a replaced key, and is re-created).
                binder.bind(Hunt20AOrder.self).withArguments(String.self).to(dependencies: []) { _, label in
                    Hunt20AOrder(label: label)
                }.in(.singleton)
            })
        let order = try injector.get(Hunt20AOrder.self, arguments: "kept")
        let test = try injector.overriding { binder in
            binder.bind(Hunt20AArgued.self).withArguments(Int.self).to { _, number in Hunt20AArgued(number: -number) }
        }
        #expect(try test.get(Hunt20AArgued.self, arguments: 5).number == -5)
        #expect(try injector.get(Hunt20AArgued.self, arguments: 5).number == 5)
        #expect(try test.get(Hunt20AOrder.self, arguments: "other") === order)
        let missing = Self.error { () throws(ProvisionError) in try test.get(Hunt20AArgued.self) }
        #expect(missing?.code == .argumentMismatch, "no defaults: \(String(describing: missing))")
    }

    @Test("an argument factory resolving a missing key: notBound with the path, from a request and from a dependant")
    func argumentFactoryMissingDependency() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Hunt20AArgued.self).withArguments(Int.self).to { resolver, number in
                    _ = try resolver.get(Hunt20AArgumentMissing.self)
                    return Hunt20AArgued(number: number)
                }.defaults(1)
                binder.bind(Hunt20AArgumentUser.self).to(Hunt20AArgumentUser.init(argued:))
            })
        let direct = Self.error { () throws(ProvisionError) in try injector.get(Hunt20AArgued.self, arguments: 2) }
        #expect(direct?.code == .notBound)
        #expect(
            direct?.path == [BindingKey(Hunt20AArgued.self), BindingKey(Hunt20AArgumentMissing.self)],
            "\(direct?.pathDescription ?? "")")
        let dependant = Self.error { () throws(ProvisionError) in try injector.get(Hunt20AArgumentUser.self) }
        #expect(dependant?.code == .notBound)
        #expect(
            dependant?.path
                == [
                    BindingKey(Hunt20AArgumentUser.self), BindingKey(Hunt20AArgued.self),
                    BindingKey(Hunt20AArgumentMissing.self),
                ],
            "\(dependant?.pathDescription ?? "")")
    }
}
