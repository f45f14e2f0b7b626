import Synchronization
import Testing

@testable import Provision

// One type, several argument lists (Swinject keys its registrations by argument types), and arguments
// converted to the declared types as a call would convert them.

private protocol Critter: Sendable {
    var description: String { get }
}

private final class Kitten: Critter {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A class hierarchy for conversions.
private class PetCollar: @unchecked Sendable {}

private final class LeatherPetCollar: PetCollar, @unchecked Sendable {}

private protocol PetTag: Sendable {}

private struct NamePetTag: PetTag {}

/// Depends on the animal without arguments.
private final class PetShelter: Sendable {
    let animal: any Critter
    init(animal: any Critter) { self.animal = animal }
}

@Suite("Arguments: several argument lists for one type")
struct ArgumentVariantsTests {
    /// `any Critter` with (), (String) and (String, Int).
    private static let animals = ClosureModule { binder in
        binder.bind((any Critter).self).to { Kitten("plain") }
        binder.bind((any Critter).self).withArguments(String.self).to { _, name in Kitten(name) }
        binder.bind((any Critter).self).withArguments(String.self, Int.self).to { _, name, age in
            Kitten("\(name), \(age)")
        }
    }

    @Test("each request takes the binding of its arguments' types; a dependency takes the one without")
    func resolvedByArgumentTypes() throws {
        let injector = try Injector(Self.animals, ClosureModule { $0.bind(PetShelter.self).to(PetShelter.init) })
        #expect(try injector.get((any Critter).self).description == "plain")
        #expect(try injector.get((any Critter).self, arguments: "Rex").description == "Rex")
        #expect(try injector.get((any Critter).self, arguments: "Rex", 3).description == "Rex, 3")
        #expect(try injector.get(PetShelter.self).animal.description == "plain")
        #expect(injector.bindingKeys.filter { $0 == BindingKey((any Critter).self) }.count == 1)
    }

    @Test("without a binding without arguments, the one with defaults serves requests without arguments")
    func defaultsServeRequestsWithout() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Critter).self).withArguments(String.self, Int.self).to { _, name, age in
                    Kitten("\(name), \(age)")
                }
                binder.bind((any Critter).self).withArguments(String.self).to { _, name in Kitten(name) }.defaults(
                    "Tom")
                binder.bind(PetShelter.self).to(PetShelter.init)
            }
        )
        #expect(try injector.get(PetShelter.self).animal.description == "Tom")
        #expect(try injector.get((any Critter).self, arguments: "Kit", 1).description == "Kit, 1")
        #expect(try injector.get((any Critter).self, arguments: "Kit").description == "Kit")
    }

    @Test("arguments that match no list throw argumentMismatch listing every list the type is bound with")
    func noMatch() throws {
        let injector = try Injector(Self.animals)
        let error = #expect(throws: ProvisionError.self) { try injector.get((any Critter).self, arguments: 2.5) }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.message.contains("takes arguments (), (String) or (String, Int)") == true)
        #expect(error?.message.contains("was given (Double)") == true)
    }

    @Test("one argument list bound twice is a duplicate; across modules an override replaces that list only")
    func duplicatesAndOverrides() throws {
        let twice = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind((any Critter).self).withArguments(String.self).to { _, name in Kitten(name) }
                    binder.bind((any Critter).self).withArguments(String.self).to { _, name in Kitten(name) }
                }
            )
        }
        #expect(twice?.code == .duplicateBinding)
        #expect(twice?.key?.description == "any Critter with arguments (String)")

        let acrossModules = #expect(throws: ProvisionError.self) {
            try Injector(
                Self.animals,
                ClosureModule { $0.bind((any Critter).self).withArguments(String.self).to { _, _ in Kitten("other") } }
            )
        }
        #expect(acrossModules?.code == .duplicateBinding)

        let overridden = try Injector(
            Self.animals,
            ClosureModule {
                $0.override((any Critter).self).withArguments(String.self).to { _, name in Kitten("new \(name)") }
            }
        )
        #expect(try overridden.get((any Critter).self, arguments: "Rex").description == "new Rex")
        #expect(try overridden.get((any Critter).self).description == "plain")
        #expect(try overridden.get((any Critter).self, arguments: "Rex", 2).description == "Rex, 2")
    }

    @Test("a variant singleton is built once, from the first request's arguments, by 8 threads at once")
    func variantSingleton() throws {
        for _ in 0..<25 {
            let builds = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind((any Critter).self).to { Kitten("plain") }
                    binder.bind((any Critter).self).withArguments(String.self).to { _, name -> any Critter in
                        builds.increment()
                        return Kitten(name)
                    }.in(.singleton)
                }
            )
            let barrier = Barrier(count: 8)
            let names = Locked<Set<String>>([])
            let finished = runThreads(8) { index in
                barrier.arriveAndWait()
                if let cat = try? injector.get((any Critter).self, arguments: "cat \(index)") {
                    names.withLock { _ = $0.insert(cat.description) }
                }
            }
            #expect(finished)
            #expect(builds.value == 1 && names.withLock { $0.count } == 1)
            #expect(try injector.get((any Critter).self).description == "plain")
        }
    }

    @Test("children find their parent's lists; installing a list adds it, installing one that exists fails")
    func childrenAndInstalls() throws {
        let parent = try Injector(Self.animals)
        let child = try parent.makeChild()
        #expect(try child.get((any Critter).self, arguments: "Rex", 4).description == "Rex, 4")

        let injector = try Injector(ClosureModule { $0.bind((any Critter).self).to { Kitten("plain") } })
        try injector.install(
            ClosureModule {
                $0.bind((any Critter).self).withArguments(Int.self).to { _, lives in Kitten("\(lives) lives") }
            })
        #expect(try injector.get((any Critter).self, arguments: 9).description == "9 lives")
        #expect(try injector.get((any Critter).self).description == "plain")
        let again = #expect(throws: ProvisionError.self) {
            try injector.install(
                ClosureModule { $0.bind((any Critter).self).withArguments(Int.self).to { _, _ in Kitten("") } })
        }
        #expect(again?.code == .duplicateBinding)
        let plainAgain = #expect(throws: ProvisionError.self) {
            try injector.install(ClosureModule { $0.bind((any Critter).self).to { Kitten("") } })
        }
        #expect(plainAgain?.code == .duplicateBinding)
    }

    @Test("named keys have lists of their own; validation and diagrams show each binding with its list")
    func namedKeysAndGraphs() throws {
        let injector = try Injector(
            Self.animals,
            ClosureModule { binder in
                binder.bind((any Critter).self, named: "wild").to { Kitten("wild") }
                binder.bind((any Critter).self, named: "wild").withArguments(String.self).to { _, name in
                    Kitten("wild \(name)")
                }
            }
        )
        #expect(try injector.get((any Critter).self, named: "wild", arguments: "Lynx").description == "wild Lynx")
        #expect(try injector.get((any Critter).self, arguments: "Lynx").description == "Lynx")
        let labels = injector.graph().vertices.map(\.key.description)
        #expect(labels.contains("any Critter with arguments (String)"))
        #expect(labels.contains("any Critter with arguments (String) named \"wild\""))
        #expect(try injector.validate().isValid)
        let dot = injector.graph().dot()
        #expect(dot.contains("any Critter\\narguments (String)\\ntransient, arguments"))
        #expect(dot.contains("any Critter\\narguments (String), named \\\"wild\\\"\\ntransient, arguments"))
    }

    @Test("an overriding injector replaces one list of the original and keeps the others")
    func overridingOneList() throws {
        let app = try Injector(Self.animals)
        let test = try app.overriding {
            $0.bind((any Critter).self).withArguments(String.self).to { _, name in Kitten("fake \(name)") }
        }
        #expect(try test.get((any Critter).self, arguments: "Rex").description == "fake Rex")
        #expect(try test.get((any Critter).self).description == "plain")
        #expect(try test.get((any Critter).self, arguments: "Rex", 1).description == "Rex, 1")
        #expect(try app.get((any Critter).self, arguments: "Rex").description == "Rex")
    }
}

@Suite("Arguments: conversion to the declared types")
struct ArgumentConversionTests {
    private static let tagged = ClosureModule { binder in
        binder.bind(String.self, named: "optional").withArguments(String?.self).to { _, name in name ?? "none" }
        binder.bind(String.self, named: "collar").withArguments(PetCollar.self).to { _, collar in "\(type(of: collar))"
        }
        binder.bind(String.self, named: "tag").withArguments((any PetTag).self).to { _, tag in "\(type(of: tag))" }
    }

    @Test(
        "a value where an optional is declared, a subclass where its class is, a conforming value where a protocol is")
    func promotions() throws {
        let injector = try Injector(Self.tagged)
        #expect(try injector.get(String.self, named: "optional", arguments: "Rex") == "Rex")
        #expect(try injector.get(String.self, named: "optional", arguments: "Rex" as String?) == "Rex")
        #expect(try injector.get(String.self, named: "collar", arguments: LeatherPetCollar()) == "LeatherPetCollar")
        #expect(try injector.get(String.self, named: "tag", arguments: NamePetTag()) == "NamePetTag")
    }

    @Test("arguments that don't convert throw argumentMismatch naming the declared and the given types")
    func noConversion() throws {
        let injector = try Injector(Self.tagged)
        let error = #expect(throws: ProvisionError.self) {
            try injector.get(String.self, named: "optional", arguments: 1)
        }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.message.contains("takes arguments (String?), was given (Int)") == true)
        let count = #expect(throws: ProvisionError.self) {
            try injector.get(String.self, named: "optional", arguments: "a", "b")
        }
        #expect(count?.code == .argumentMismatch)
    }

    @Test("arguments that convert to two lists are ambiguous, and say so")
    func ambiguous() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(String.self).withArguments(String?.self).to { _, _ in "optional" }
                binder.bind(String.self).withArguments((any Sendable).self).to { _, _ in "sendable" }
            }
        )
        #expect(try injector.get(String.self, arguments: "x" as String?) == "optional")
        let error = #expect(throws: ProvisionError.self) { try injector.get(String.self, arguments: "x") }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.message.contains("convert to 2 of the declared lists") == true)
    }

    @Test("a converted request builds a singleton once, and reaches a variant and a handle's binding")
    func convertedEverywhere() throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(String.self).to { "plain" }
                binder.bind(String.self).withArguments(String?.self).to { _, name -> String in
                    builds.increment()
                    return name ?? "none"
                }.in(.singleton)
                binder.bind(String.self, named: "echo").withArguments(Int?.self).to { _, value in "\(value ?? 0)" }
            }
        )
        #expect(try injector.get(String.self, arguments: "first") == "first")
        #expect(try injector.get(String.self, arguments: "second") == "first")
        #expect(builds.value == 1)
        #expect(try injector.get(Provider<String>.self, named: "echo").get(arguments: 7) == "7")
        #expect(try injector.get(ObjectFactory.self).get(String.self, named: "echo", arguments: 8) == "8")
    }
}
