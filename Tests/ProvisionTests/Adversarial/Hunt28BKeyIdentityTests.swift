import Foundation
import Provision
import Testing

// Hunt 28B: which keys are one key and which are two (marker protocols, generic specializations,
// generic class hierarchies, optional collections), and whether validation agrees with resolution.
//
// Found by hunt 28B, fixed: `any P & Sendable` and `any P` are one key at run time (a marker protocol
// doesn't exist there); the duplicate binding's hint now says so, and `BindingKey` documents it.

/// A logger protocol that is not Sendable, for `any Hunt28BPlainLogger` and `any Hunt28BPlainLogger & Sendable`.
protocol Hunt28BPlainLogger {
    var tag: String { get }
}
struct Hunt28BTagLogger: Hunt28BPlainLogger, Sendable {
    let tag: String
}

/// A generic self-declaring singleton whose dependency is its type argument.
final class Hunt28BHolder<Value: Sendable>: Injectable, Sendable {
    let value: Value
    static var injection: Injection<Hunt28BHolder<Value>> {
        Injection(Hunt28BHolder.init(value:)).in(.singleton)
    }
    init(value: Value) { self.value = value }
}

/// A generic class hierarchy declaring itself with InjectableClass.
class Hunt28BPipeline<Input>: InjectableClass, @unchecked Sendable {
    class var classInjection: any InjectionDeclaration { Injection(Hunt28BPipeline<Input>.init) }
    init() {}
    func kind() -> String { "generic" }
}
final class Hunt28BUserPipeline: Hunt28BPipeline<Hunt28BUser>, @unchecked Sendable {
    override class var classInjection: any InjectionDeclaration { Injection(Hunt28BUserPipeline.init) }
    override init() { super.init() }
    override func kind() -> String { "users" }
}
/// A subclass that forgot to override its declaration.
final class Hunt28BOrderPipeline: Hunt28BPipeline<Hunt28BOrder>, @unchecked Sendable {}

/// Takes an optional collection.
struct Hunt28BMaybePlugins: Sendable {
    let plugins: [any Hunt28BNamed]?
}

/// Takes an optional generic self-declaring type whose dependency is missing.
struct Hunt28BMaybeHolder: Sendable {
    let holder: Hunt28BHolder<Hunt28BEndpointConfig>?
}

/// A codec chosen by its metatype.
protocol Hunt28BCodec: SendableMetatype {
    static func encode(_ value: Int) -> String
}
enum Hunt28BHexCodec: Hunt28BCodec {
    static func encode(_ value: Int) -> String { String(value, radix: 16) }
}
struct Hunt28BEncoder: Sendable {
    let codec: any Hunt28BCodec.Type
}

@Suite("Hunt28B: key identity of type shapes, and validation against resolution", .timeLimit(.minutes(1)))
struct Hunt28BKeyIdentityTests {
    @Test("any P and any P & Sendable are two types in source: both bind, or the error says why they can't")
    func markerComposition() throws {
        let result = Result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    binder.bind((any Hunt28BPlainLogger).self).to { Hunt28BTagLogger(tag: "plain") }
                    binder.bind((any Hunt28BPlainLogger & Sendable).self).to { Hunt28BTagLogger(tag: "sendable") }
                })
        }
        switch result {
        case .success(let injector):
            #expect(try injector.get((any Hunt28BPlainLogger).self).tag == "plain")
            #expect(try injector.get((any Hunt28BPlainLogger & Sendable).self).tag == "sendable")
        case .failure(let error):
            // If the two can't be told apart at run time, the message must not claim one key was bound twice
            // without saying that `& Sendable` is erased.
            #expect("\(error)".contains("Sendable"), "\(error)")
        }
    }

    @Test("a generic self-declaring singleton depending on its type argument: the child's own Int, the parent's String")
    func genericInjectableChildBinding() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self).toInstance(1)
                binder.bind(String.self).toInstance("parent")
            })
        let child = try parent.makeChild(ClosureModule { $0.bind(Int.self).toInstance(2) })
        #expect(try child.get(Hunt28BHolder<Int>.self).value == 2)
        #expect(try parent.get(Hunt28BHolder<Int>.self).value == 1)
        let childString = try child.get(Hunt28BHolder<String>.self)
        #expect(childString === (try parent.get(Hunt28BHolder<String>.self)))
        #expect(try child.get(Lazy<Hunt28BHolder<Int>>.self).value.value == 2)
        #expect(try child.get(Provider<Hunt28BHolder<Int>>.self).get() === child.get(Hunt28BHolder<Int>.self))
    }

    @Test("a generic InjectableClass hierarchy: each specialization and subclass builds itself")
    func genericInjectableClass() throws {
        let injector = try Injector()
        #expect(try injector.get(Hunt28BPipeline<Hunt28BOrder>.self).kind() == "generic")
        #expect(try injector.get(Hunt28BPipeline<Hunt28BUser>.self).kind() == "generic")
        #expect(try injector.get(Hunt28BUserPipeline.self).kind() == "users")
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt28BOrderPipeline.self) }
        #expect(error?.code == .typeMismatch)
        #expect(
            error?.message
                == "Hunt28BOrderPipeline's classInjection builds Hunt28BPipeline<Hunt28BOrder>, not Hunt28BOrderPipeline: "
                + "it inherits its superclass's declaration")
    }

    @Test("an optional collection parameter: nil with no elements, the elements otherwise; validation agrees")
    func optionalCollection() throws {
        let empty = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BMaybePlugins.self).to(Hunt28BMaybePlugins.init(plugins:))
            })
        #expect(try empty.validate().isValid)
        #expect(try empty.get(Hunt28BMaybePlugins.self).plugins == nil)
        let full = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt28BNamed).self).to(Hunt28BPluginA.init)
                binder.bind(Hunt28BMaybePlugins.self).to(Hunt28BMaybePlugins.init(plugins:))
            })
        #expect(try full.get(Hunt28BMaybePlugins.self).plugins?.map(\.name) == ["a"])
    }

    @Test("an optional generic self-declaring type with a missing dependency: validation and resolution agree")
    func optionalGenericInjectableMissingDependency() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt28BMaybeHolder.self).to(Hunt28BMaybeHolder.init(holder:))
                }
            ], configuration: Injector.Configuration(validatesOnCreation: false))
        let report = injector.validationReport()
        let resolved = Result { () throws(ProvisionError) in try injector.get(Hunt28BMaybeHolder.self) }
        switch (report.isValid, resolved) {
        case (true, .success):
            break
        case (false, .failure(let error)):
            #expect(report.problems.map(\.code).contains(error.code), "\(report) / \(error)")
        case (true, .failure(let error)):
            Issue.record("validation passed, resolution failed: \(error)")
        case (false, .success(let value)):
            Issue.record("validation failed (\(report)), resolution gave \(String(describing: value.holder))")
        }
    }

    @Test("an existential metatype bound to a conforming type's metatype is injected")
    func existentialMetatype() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt28BCodec.Type).self).toInstance(Hunt28BHexCodec.self)
                binder.bind(Hunt28BEncoder.self).to(Hunt28BEncoder.init(codec:))
            })
        #expect(try injector.get(Hunt28BEncoder.self).codec.encode(255) == "ff")
        let missing = #expect(throws: ProvisionError.self) {
            _ = try Injector(ClosureModule { $0.bind(Hunt28BEncoder.self).to(Hunt28BEncoder.init(codec:)) })
        }
        #expect("\(missing.map { "\($0)" } ?? "")".contains("Hunt28BEncoder -> any Hunt28BCodec.Type"))
    }

    @Test("specializations of one generic are separate keys in one module: no duplicate, each its own value")
    func specializationsInOneModule() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BRepository<Hunt28BUser>.self, named: "r").toInstance(Hunt28BRepository())
                binder.bind(Hunt28BRepository<Hunt28BOrder>.self, named: "r").toInstance(Hunt28BRepository())
                binder.bind(Hunt28BRepository<Hunt28BRepository<Hunt28BUser>>.self, named: "r")
                    .toInstance(Hunt28BRepository())
                binder.bind((any Hunt28BStore<Hunt28BUser>).self).to(Hunt28BMemoryStore.init)
            })
        #expect(injector.hasBinding(for: Hunt28BRepository<Hunt28BUser>.self, named: "r"))
        #expect(injector.hasBinding(for: Hunt28BRepository<Hunt28BRepository<Hunt28BUser>>.self, named: "r"))
        #expect(!injector.hasBinding(for: Hunt28BRepository<Hunt28BRepository<Hunt28BOrder>>.self, named: "r"))
        let error = #expect(throws: ProvisionError.self) {
            try injector.get((any Hunt28BStore<Hunt28BOrder>).self)
        }
        #expect(error?.code == .notBound)
    }

    @Test("overriding a generic self-declaring singleton's type argument rebuilds that specialization only")
    func overridingTypeArgument() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self).toInstance(1)
                binder.bind(String.self).toInstance("kept")
            })
        let original = try injector.get(Hunt28BHolder<Int>.self)
        let kept = try injector.get(Hunt28BHolder<String>.self)
        let overridden = try injector.overriding { $0.bind(Int.self).toInstance(9) }
        #expect(try overridden.get(Hunt28BHolder<Int>.self).value == 9)
        #expect(try overridden.get(Hunt28BHolder<String>.self) === kept)
        #expect(try injector.get(Hunt28BHolder<Int>.self) === original)
        #expect(try overridden.get(Hunt28BHolder<Hunt28BHolder<Int>>.self).value.value == 9)
        #expect(try injector.get(Hunt28BHolder<Hunt28BHolder<Int>>.self).value === original)
    }
}
