import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// An animal bound with several argument lists.
struct Hunt24AAnimal: Sendable {
    let name: String
}

/// Depends on an animal (takes the binding without arguments, or the first with defaults).
struct Hunt24AKeeper: Sendable {
    let animal: Hunt24AAnimal
}

// MARK: - Tests

@Suite("Hunt 24A: argument variants added later", .timeLimit(.minutes(2)))
struct Hunt24AVariantTests {
    /// An injector whose only binding of the animal takes a `String` and declares no defaults.
    static func stringOnly() throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AAnimal.self).withArguments(String.self).to { _, name in Hunt24AAnimal(name: name) }
            })
    }

    @Test("one injector: the binding without arguments serves plain requests, the first with defaults else")
    func oneInjector() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AAnimal.self).withArguments(String.self).to { _, name in Hunt24AAnimal(name: name) }
                binder.bind(Hunt24AAnimal.self).withArguments(Int.self).to { _, age in Hunt24AAnimal(name: "age \(age)")
                }
                .defaults(3)
                binder.bind(Hunt24AAnimal.self).withArguments(Bool.self).to { _, _ in Hunt24AAnimal(name: "bool") }
                    .defaults(true)
                binder.bind(Hunt24AKeeper.self).to(Hunt24AKeeper.init(animal:))
            })
        #expect(try injector.syncGet(Hunt24AAnimal.self).name == "age 3")
        #expect(try injector.syncGet(Hunt24AKeeper.self).animal.name == "age 3")
        #expect(try injector.get(Hunt24AAnimal.self, arguments: "Tom").name == "Tom")
        #expect(try injector.get(Hunt24AAnimal.self, arguments: false).name == "bool")
    }

    @Test("an overriding injector adding a binding without arguments: plain requests take it")
    func overridingAddsPlain() throws {
        let original = try Self.stringOnly()
        let derived = try original.overriding { binder in
            binder.bind(Hunt24AAnimal.self).to { _ in Hunt24AAnimal(name: "plain") }
        }
        #expect(try derived.syncGet(Hunt24AAnimal.self).name == "plain")
    }

    /// If `install` accepts a binding without arguments for a key bound with arguments, plain requests
    /// must take it (it throws `duplicateBinding`).
    @Test("an install adding a binding without arguments: rejected, or plain requests take it")
    func installAddsPlain() throws {
        let injector = try Self.stringOnly()
        do {
            try injector.install(
                ClosureModule { binder in
                    binder.bind(Hunt24AAnimal.self).to { _ in Hunt24AAnimal(name: "plain") }
                })
        } catch {
            #expect(error.code == .duplicateBinding)
            return
        }
        #expect(try injector.syncGet(Hunt24AAnimal.self).name == "plain")
        #expect(try injector.get(Hunt24AAnimal.self, arguments: "Tom").name == "Tom")
    }

    /// Found by hunt 24A, fixed: a binding with arguments and no defaults hands a request without arguments to the
    /// key's first binding with defaults (`Recipe.arguments`).
    ///
    /// Promised (ArgumentBindingBuilder.swift): "a request without arguments, and a dependency on the
    /// type, take the binding without arguments, or else the first one with defaults." An install may
    /// add an argument list to a key the injector binds (ArgumentVariantsTests: "installing a list adds
    /// it"); `install(_:)` otherwise "never replaces a binding ... throws and adds nothing".
    ///
    /// The injector binds `Hunt24AAnimal` with `(String)` and no defaults; the install adds `(Int)` with
    /// defaults, and is accepted. A plain request then throws "ProvisionError (argument mismatch):
    /// Hunt24AAnimal takes arguments (String), was given (): it was requested without arguments and
    /// declares no defaults", though the type now has a binding with defaults (an injector created with
    /// both modules serves the plain request from it, see `oneInjector`). Cause:
    /// `ArgumentVariants.separate(existing:)` keeps the installed `(String)` binding as the key's primary
    /// binding, which alone serves plain requests; the new binding becomes a variant, reached only by
    /// `Int` arguments.
    @Test("an install adding a binding with defaults: rejected, or plain requests take its defaults")
    func installAddsDefaults() throws {
        let injector = try Self.stringOnly()
        do {
            try injector.install(
                ClosureModule { binder in
                    binder.bind(Hunt24AAnimal.self).withArguments(Int.self).to { _, age in
                        Hunt24AAnimal(name: "age \(age)")
                    }.defaults(5)
                })
        } catch {
            #expect(error.code == .duplicateBinding)
            return
        }
        #expect(try injector.syncGet(Hunt24AAnimal.self).name == "age 5")
        #expect(try injector.get(Hunt24AAnimal.self, arguments: 2).name == "age 2")
    }

    /// Found by hunt 24A, fixed: in an injector derived over such a binding, the first new binding with defaults
    /// keeps the key (`ArgumentVariants.separate`).
    ///
    /// Promised (Injector+Overriding.swift, `overriding(_:)`): "Every binding of `modules` replaces this
    /// injector's binding of its key (or adds one)"; and (ArgumentBindingBuilder.swift) "a request
    /// without arguments, and a dependency on the type, take the binding without arguments, or else the
    /// first one with defaults."
    ///
    /// The original binds `Hunt24AAnimal` with `(String)` and no defaults; the derived injector binds it
    /// with `(Int)` and defaults. Whether the replacement replaces the original's binding or is added
    /// beside it, a plain request has a binding with defaults to take. Instead it throws
    /// "ProvisionError (argument mismatch): Hunt24AAnimal takes arguments (String), was given (): it was
    /// requested without arguments and declares no defaults": the original's `(String)` binding stays the
    /// key's primary one and the replacement becomes a variant only reachable with an `Int` argument.
    @Test("an overriding injector adding a binding with defaults: plain requests take its defaults")
    func overridingAddsDefaults() throws {
        let original = try Self.stringOnly()
        let derived = try original.overriding { binder in
            binder.bind(Hunt24AAnimal.self).withArguments(Int.self).to { _, age in Hunt24AAnimal(name: "age \(age)") }
                .defaults(5)
        }
        #expect(try derived.syncGet(Hunt24AAnimal.self).name == "age 5")
    }

    @Test("a child binding the type without arguments: its plain requests take the child's binding")
    func childAddsPlain() throws {
        let parent = try Self.stringOnly()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt24AAnimal.self).to { _ in Hunt24AAnimal(name: "plain") }
                binder.bind(Hunt24AKeeper.self).to(Hunt24AKeeper.init(animal:))
            })
        #expect(try child.syncGet(Hunt24AAnimal.self).name == "plain")
        #expect(try child.syncGet(Hunt24AKeeper.self).animal.name == "plain")
    }
}

extension Hunt24AVariantTests {
    @Test("a child binding the type with other arguments and defaults: its plain requests take them")
    func childAddsDefaults() throws {
        let parent = try Self.stringOnly()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt24AAnimal.self).withArguments(Int.self).to { _, age in Hunt24AAnimal(name: "age \(age)")
                }
                .defaults(5)
                binder.bind(Hunt24AKeeper.self).to(Hunt24AKeeper.init(animal:))
            })
        #expect(try child.syncGet(Hunt24AAnimal.self).name == "age 5")
        #expect(try child.syncGet(Hunt24AKeeper.self).animal.name == "age 5")
        #expect(try child.get(Hunt24AAnimal.self, arguments: 7).name == "age 7")
    }
}

extension Hunt24AVariantTests {
    @Test("named bindings with several argument lists: each list by name, no fallback, errors list the named lists")
    func namedVariants() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AAnimal.self, named: "zoo").withArguments(String.self).to { _, name in
                    Hunt24AAnimal(name: "zoo " + name)
                }
                binder.bind(Hunt24AAnimal.self, named: "zoo").withArguments(Int.self).to { _, age in
                    Hunt24AAnimal(name: "zoo \(age)")
                }
                binder.bind(Hunt24AAnimal.self).withArguments(Bool.self).to { _, _ in Hunt24AAnimal(name: "farm") }
            })
        #expect(try injector.get(Hunt24AAnimal.self, named: "zoo", arguments: "Tom").name == "zoo Tom")
        #expect(try injector.get(Hunt24AAnimal.self, named: "zoo", arguments: 4).name == "zoo 4")
        #expect(try injector.get(Hunt24AAnimal.self, arguments: true).name == "farm")
        let unnamed = #expect(throws: ProvisionError.self) { try injector.get(Hunt24AAnimal.self, arguments: 4) }
        #expect(unnamed?.code == .argumentMismatch)
        #expect(unnamed?.message.contains("(String)") == false, "\(unnamed?.message ?? "")")
        let named = #expect(throws: ProvisionError.self) {
            try injector.get(Hunt24AAnimal.self, named: "zoo", arguments: true)
        }
        #expect(named?.code == .argumentMismatch)
        #expect(named?.message.contains("(String)") == true && named?.message.contains("(Int)") == true)
        #expect(named?.message.components(separatedBy: "(Bool)").count == 2, "\(named?.message ?? "")")
        let missing = #expect(throws: ProvisionError.self) {
            try injector.get(Hunt24AAnimal.self, named: "aquarium", arguments: 4)
        }
        #expect(missing?.code == .notBound)
    }
}

extension Hunt24AVariantTests {
    /// An injector binding the animal without arguments and with a `String`.
    static func plainAndString() throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AAnimal.self).to { _ in Hunt24AAnimal(name: "plain") }
                binder.bind(Hunt24AAnimal.self).withArguments(String.self).to { _, name in Hunt24AAnimal(name: name) }
                binder.bind(Hunt24AKeeper.self).to(Hunt24AKeeper.init(animal:))
            })
    }

    @Test("overriding one argument list of two keeps the other")
    func overridingOneOfTwo() throws {
        let original = try Self.plainAndString()
        let stringReplaced = try original.overriding { binder in
            binder.bind(Hunt24AAnimal.self).withArguments(String.self).to { _, name in
                Hunt24AAnimal(name: "fake " + name)
            }
        }
        #expect(try stringReplaced.syncGet(Hunt24AAnimal.self).name == "plain")
        #expect(try stringReplaced.get(Hunt24AAnimal.self, arguments: "Tom").name == "fake Tom")
        let plainReplaced = try original.overriding { binder in
            binder.bind(Hunt24AAnimal.self).to { _ in Hunt24AAnimal(name: "fake plain") }
        }
        #expect(try plainReplaced.syncGet(Hunt24AAnimal.self).name == "fake plain")
        #expect(try plainReplaced.syncGet(Hunt24AKeeper.self).animal.name == "fake plain")
        #expect(try plainReplaced.get(Hunt24AAnimal.self, arguments: "Tom").name == "Tom")
        #expect(try original.syncGet(Hunt24AAnimal.self).name == "plain")
        #expect(try original.get(Hunt24AAnimal.self, arguments: "Tom").name == "Tom")
    }

    @Test("with() and without() keep every argument list")
    func derivationsKeepLists() throws {
        let original = try Self.plainAndString()
        let derived = try original.with(ClosureModule { _ in })
        #expect(try derived.syncGet(Hunt24AAnimal.self).name == "plain")
        #expect(try derived.get(Hunt24AAnimal.self, arguments: "Tom").name == "Tom")
        let child = try original.makeChild(ClosureModule { _ in })
        #expect(try child.get(Hunt24AAnimal.self, arguments: "Kit").name == "Kit")
    }
}
