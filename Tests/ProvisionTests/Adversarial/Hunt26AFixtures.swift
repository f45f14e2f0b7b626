import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Shared fixtures of hunt 26A: chains of levels bound through each binding form, a probe that records
// the stack position at the bottom of a chain, and runners on threads with chosen stack sizes.

/// A type identity per level: the level's number plus one in binary (a leading 1 is `Hunt26AEnd`), so
/// that 5,000 levels need 13 nested generic types and no type name grows with the depth.
protocol Hunt26AID: SendableMetatype {
    static var number: Int { get }
}

enum Hunt26AEnd: Hunt26AID {
    static var number: Int { 1 }
}

enum Hunt26ABit0<Rest: Hunt26AID>: Hunt26AID {
    static var number: Int { Rest.number * 2 }
}

enum Hunt26ABit1<Rest: Hunt26AID>: Hunt26AID {
    static var number: Int { Rest.number * 2 + 1 }
}

/// Records the stack position of the deepest factory of a chain.
final class Hunt26AProbe: Sendable {
    let bottom = Atomic<UInt>(0)
    let builds = Atomic(0)

    func record() {
        bottom.store(hunt26AStackAddress(), ordering: .relaxed)
        builds.add(1, ordering: .relaxed)
    }

    var bottomAddress: UInt { bottom.load(ordering: .relaxed) }
}

/// The address of a local of a frame of its own: the stack's current position.
@inline(never)
func hunt26AStackAddress() -> UInt {
    var local = 0
    return withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
}

/// One level of an initializer chain. It holds nothing below it, so freeing a chain never recurses.
final class Hunt26ANode<ID: Hunt26AID>: Sendable {
    init() {}
}

/// Shared leaves that the wide levels (12 parameters, parameter packs) take besides the level below.
final class Hunt26AShared<Tag>: Sendable {
    init() {}
}

enum Hunt26ATag0 {}
enum Hunt26ATag1 {}
enum Hunt26ATag2 {}
enum Hunt26ATag3 {}
enum Hunt26ATag4 {}
enum Hunt26ATag5 {}
enum Hunt26ATag6 {}
enum Hunt26ATag7 {}
enum Hunt26ATag8 {}
enum Hunt26ATag9 {}
enum Hunt26ATag10 {}
enum Hunt26ATag11 {}
enum Hunt26ATag12 {}

/// A flat value for the chains of named keys: holds nothing.
final class Hunt26AValue: Sendable {
    let index: Int
    init(_ index: Int) { self.index = index }
}

/// The base class of the property-injection chain: each level's `next` is injected by name.
class Hunt26APropBase: PropertyInjectable, @unchecked Sendable {
    var next: Hunt26APropBase?
    required init() {}
    class var injectedProperties: [InjectedProperty] { [] }
    /// Drops the level below once injected, so freeing a chain never recurses.
    func didInjectDependencies() { next = nil }
}

/// A level of the property-injection chain: injects the level below, named by its number.
final class Hunt26AProp<ID: Hunt26AID>: Hunt26APropBase, @unchecked Sendable {
    override class var injectedProperties: [InjectedProperty] {
        [.inject(\Hunt26APropBase.next, named: "p\(ID.number)")]
    }
}

/// The binding forms of a chain's levels.
enum Hunt26AForm: String, CaseIterable, Sendable, Codable {
    /// `to(Node<Level>.init)`-like: an initializer of one parameter, the level below.
    case initializer
    /// An initializer of 12 parameters: the level below and 11 shared leaves.
    case arity12
    /// The parameter-pack form: the level below and 12 shared leaves (13 parameters).
    case pack
    /// `to { resolver in ... resolver.get(next) ... }` over named keys.
    case closure
    /// `closure`, every level a singleton.
    case singletonClosure
    /// `to(binding:)` delegations over named keys.
    case delegation
    /// An initializer taking a `Provider` of the level below, and calling it.
    case provider
    /// An initializer taking a `Lazy` of the level below, and reading it.
    case lazy
    /// Property injection: each level's `next` property is the level below, by name.
    case property
    /// Bindings with an argument, each resolving the next with an argument.
    case arguments
}

enum Hunt26A {
    static func bit0<R: Hunt26AID>(_: R.Type) -> any Hunt26AID.Type { Hunt26ABit0<R>.self }
    static func bit1<R: Hunt26AID>(_: R.Type) -> any Hunt26AID.Type { Hunt26ABit1<R>.self }

    /// The identity of level `index` (0 on top).
    static func id(_ index: Int) -> any Hunt26AID.Type {
        func encode(_ value: Int) -> any Hunt26AID.Type {
            if value == 1 { return Hunt26AEnd.self }
            let rest = encode(value >> 1)
            return value & 1 == 0 ? bit0(rest) : bit1(rest)
        }
        return encode(index + 1)
    }

    /// A module binding levels `0..<depth` of `form`; the bottom level records the stack position in
    /// `probe`, or (by `bottom`) throws, asks for a missing key, or asks for the top (a cycle).
    static func chain(
        _ form: Hunt26AForm, depth: Int, probe: Hunt26AProbe, bottom: Hunt26ABottom = .leaf
    ) -> ClosureModule {
        let ids = (0...depth).map(id)
        return ClosureModule { binder in
            if form == .arity12 || form == .pack { bindShared(binder) }
            for level in 0..<depth {
                ids[level].bindLevel(binder, form: form, level: level, next: ids[level + 1], probe: probe)
            }
            ids[depth].bindBottom(binder, form: form, level: depth, top: ids[0], probe: probe, bottom: bottom)
        }
    }

    static func bindShared(_ binder: Binder) {
        binder.bind(Hunt26AShared<Hunt26ATag0>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag1>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag2>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag3>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag4>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag5>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag6>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag7>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag8>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag9>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag10>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag11>.self).to(Hunt26AShared.init).in(.singleton)
        binder.bind(Hunt26AShared<Hunt26ATag12>.self).to(Hunt26AShared.init).in(.singleton)
    }

    /// Resolves the top of a chain of `form` synchronously; the value is dropped at once.
    static func resolveTop(_ injector: Injector, _ form: Hunt26AForm) throws(ProvisionError) {
        switch form {
        case .initializer, .arity12, .pack, .provider, .lazy:
            _ = try injector.get(Hunt26ANode<Hunt26AEnd>.self)
        case .closure, .singletonClosure, .delegation:
            _ = try injector.get(Hunt26AValue.self, named: "c0")
        case .property:
            _ = try injector.get(Hunt26APropBase.self, named: "p0")
        case .arguments:
            _ = try injector.get(Hunt26AValue.self, named: "a0", arguments: 0)
        }
    }

    /// Runs `body` on a new thread of `stack` bytes; `nil` when it didn't end within `timeout` seconds.
    static func onThread<T: Sendable>(
        stack: Int, timeout: Double = 60, _ body: @escaping @Sendable () -> T
    ) -> T? {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.stackSize = stack
        thread.start()
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return result.withLock { $0 }
    }

    /// Writes a line to standard error (a failing exit test shows it).
    static func log(_ text: String) {
        FileHandle.standardError.write(Data("\(text)\n".utf8))
    }

    /// Records the child's standard error when it failed.
    static func report(_ result: ExitTest.Result?) {
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("stderr: \(String(decoding: result.standardErrorContent, as: UTF8.self).suffix(1_500))")
        }
    }
}

/// What the bottom level of a chain does.
enum Hunt26ABottom: String, Sendable, Codable {
    /// Records the stack position and returns a value.
    case leaf
    /// Throws `Hunt26AFailure`.
    case throwing
    /// Asks for a key nothing binds.
    case missing
    /// Asks for the chain's top: a cycle through every level.
    case cycle
}

struct Hunt26AFailure: Error {}

extension Hunt26AID {
    typealias Node = Hunt26ANode<Self>

    /// Binds level `level` (this identity) over `next`.
    static func bindLevel(
        _ binder: Binder, form: Hunt26AForm, level: Int, next: any Hunt26AID.Type, probe _: Hunt26AProbe
    ) {
        bindLevel(binder, form: form, level: level, below: next)
    }

    static func bindLevel<N: Hunt26AID>(_ binder: Binder, form: Hunt26AForm, level: Int, below next: N.Type) {
        let name = "\(level)"
        let below = "\(level + 1)"
        switch form {
        case .initializer:
            binder.bind(Node.self).to { (_: Hunt26ANode<N>) in Node() }
        case .arity12:
            binder.bind(Node.self).to {
                (
                    _: Hunt26ANode<N>, _: Hunt26AShared<Hunt26ATag1>, _: Hunt26AShared<Hunt26ATag2>,
                    _: Hunt26AShared<Hunt26ATag3>, _: Hunt26AShared<Hunt26ATag4>, _: Hunt26AShared<Hunt26ATag5>,
                    _: Hunt26AShared<Hunt26ATag6>, _: Hunt26AShared<Hunt26ATag7>, _: Hunt26AShared<Hunt26ATag8>,
                    _: Hunt26AShared<Hunt26ATag9>, _: Hunt26AShared<Hunt26ATag10>, _: Hunt26AShared<Hunt26ATag11>
                ) in Node()
            }
        case .pack:
            binder.bind(Node.self).to {
                (
                    _: Hunt26ANode<N>, _: Hunt26AShared<Hunt26ATag0>, _: Hunt26AShared<Hunt26ATag1>,
                    _: Hunt26AShared<Hunt26ATag2>, _: Hunt26AShared<Hunt26ATag3>, _: Hunt26AShared<Hunt26ATag4>,
                    _: Hunt26AShared<Hunt26ATag5>, _: Hunt26AShared<Hunt26ATag6>, _: Hunt26AShared<Hunt26ATag7>,
                    _: Hunt26AShared<Hunt26ATag8>, _: Hunt26AShared<Hunt26ATag9>, _: Hunt26AShared<Hunt26ATag10>,
                    _: Hunt26AShared<Hunt26ATag11>, _: Hunt26AShared<Hunt26ATag12>
                ) in Node()
            }
        case .closure:
            binder.bind(Hunt26AValue.self, named: "c\(name)").to { resolver in
                _ = try resolver.get(Hunt26AValue.self, named: "c\(below)")
                return Hunt26AValue(level)
            }
        case .singletonClosure:
            binder.bind(Hunt26AValue.self, named: "c\(name)").to { resolver in
                _ = try resolver.get(Hunt26AValue.self, named: "c\(below)")
                return Hunt26AValue(level)
            }.in(.singleton)
        case .delegation:
            binder.bind(Hunt26AValue.self, named: "c\(name)").to(binding: Hunt26AValue.self, named: "c\(below)")
        case .provider:
            binder.bind(Node.self).to { (provider: Provider<Hunt26ANode<N>>) throws in
                _ = try provider.get()
                return Node()
            }
        case .lazy:
            binder.bind(Node.self).to { (lazy: Lazy<Hunt26ANode<N>>) throws in
                _ = try lazy.value
                return Node()
            }
        case .property:
            binder.bind(Hunt26APropBase.self, named: "p\(name)").to(Hunt26AProp<Self>.init)
        case .arguments:
            binder.bind(Hunt26AValue.self, named: "a\(name)").withArguments(Int.self).to { resolver, value in
                let factory = try resolver.get(ObjectFactory.self)
                _ = try factory.get(Hunt26AValue.self, named: "a\(below)", arguments: value + 1)
                return Hunt26AValue(value)
            }
        }
    }

    /// Binds the bottom level (this identity, number `level`) of a chain whose top is `top`.
    static func bindBottom(
        _ binder: Binder, form: Hunt26AForm, level: Int, top: any Hunt26AID.Type, probe: Hunt26AProbe,
        bottom: Hunt26ABottom
    ) {
        let act: @Sendable (Resolver) throws -> Void = { resolver in
            switch bottom {
            case .leaf: probe.record()
            case .throwing: throw Hunt26AFailure()
            case .missing: _ = try resolver.get(Hunt26AValue.self, named: "missing")
            case .cycle: try Hunt26A.resolveTop(resolver, form)
            }
        }
        switch form {
        case .initializer, .arity12, .pack, .provider, .lazy:
            binder.bind(Node.self).to { resolver in
                try act(resolver)
                return Node()
            }
        case .closure, .singletonClosure, .delegation:
            binder.bind(Hunt26AValue.self, named: "c\(level)").to { resolver in
                try act(resolver)
                return Hunt26AValue(level)
            }
        case .property:
            binder.bind(Hunt26APropBase.self, named: "p\(level)").to { resolver in
                try act(resolver)
                return Hunt26APropBase()
            }
        case .arguments:
            binder.bind(Hunt26AValue.self, named: "a\(level)").withArguments(Int.self).to { resolver, value in
                try act(resolver)
                return Hunt26AValue(value)
            }
        }
    }
}

extension Hunt26A {
    /// The top of a chain, asked for through a resolver (the cycle at the bottom).
    static func resolveTop(_ resolver: Resolver, _ form: Hunt26AForm) throws(ProvisionError) {
        switch form {
        case .initializer, .arity12, .pack, .provider, .lazy:
            _ = try resolver.get(Hunt26ANode<Hunt26AEnd>.self)
        case .closure, .singletonClosure, .delegation:
            _ = try resolver.get(Hunt26AValue.self, named: "c0")
        case .property:
            _ = try resolver.get(Hunt26APropBase.self, named: "p0")
        case .arguments:
            _ = try resolver.get(ObjectFactory.self).get(Hunt26AValue.self, named: "a0", arguments: 0)
        }
    }
}
