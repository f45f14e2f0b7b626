import Provision
import Testing

// Hunt 28B: the type-system shapes users bind (generic protocols with primary associated types, protocols
// nested in types, generic types nested in generic types, variadic generics, class-constrained
// compositions) named in errors the way source spells them (README: "the key in Swift syntax").
//
// Found by hunt 28B, fixed: primary associated types spelled as constraints, nested protocols without
// `any`, a nested generic type's arguments read as its parent's, `Pack{...}`, and a class-first
// composition without `any` (see `TypeName`).

protocol Hunt28BStore<Element>: Sendable {
    associatedtype Element
    func count() -> Int
}
protocol Hunt28BCache<Key, Value>: Sendable {
    associatedtype Key
    associatedtype Value
}
struct Hunt28BUser: Sendable {}
struct Hunt28BMemoryStore: Hunt28BStore {
    typealias Element = Hunt28BUser
    func count() -> Int { 3 }
}
struct Hunt28BRepository<Element>: Sendable {}
struct Hunt28BBox<Value>: Sendable {}
struct Hunt28BPair<First, Second>: Sendable {}
struct Hunt28BOuter<Value>: Sendable {
    struct Inner<Other>: Sendable, Hashable {}
}
struct Hunt28BPack<each Value>: Sendable {}
class Hunt28BBase: @unchecked Sendable {}
protocol Hunt28BAudited: Sendable {}
protocol Hunt28BÜberStore: Sendable {}
struct Hunt28BFailure: Error {}

/// A namespace with a protocol of its own (Swift 6 allows protocols nested in non-generic types).
enum Hunt28BBilling {
    protocol Gateway: Sendable {}
    struct Stripe: Gateway {}
}

/// Needs a store of users through the generic protocol.
struct Hunt28BUserDirectory: Sendable {
    let store: any Hunt28BStore<Hunt28BUser>
}

/// Needs a nested generic inside an optional inside a generic.
struct Hunt28BNestedNeeder: Sendable {
    let box: Hunt28BBox<Hunt28BOuter<Int>.Inner<String>?>
}

/// A notBound error's key for `T`, requested from an empty injector.
func hunt28BMissing<T>(_ type: T.Type) throws -> ProvisionError? {
    let injector = try Injector()
    do {
        _ = try injector.get(type)
        return nil
    } catch {
        return error
    }
}

@Suite("Hunt28B: type names of generic, nested and existential shapes", .timeLimit(.minutes(1)))
struct Hunt28BTypeNameTests {
    // MARK: primary associated types

    @Test("a missing any Hunt28BStore<Hunt28BUser> is named as written, in message, key and hint")
    func primaryAssociatedTypeMissing() throws {
        let error = try hunt28BMissing((any Hunt28BStore<Hunt28BUser>).self)
        #expect(error?.code == .notBound)
        #expect(error?.key?.description == "any Hunt28BStore<Hunt28BUser>")
        #expect(error?.message == "no binding for any Hunt28BStore<Hunt28BUser>")
        #expect(error?.hint == "bind it in a module: binder.bind((any Hunt28BStore<Hunt28BUser>).self).to(...)")
    }

    @Test("a constructor's missing any Hunt28BStore<Hunt28BUser>: validation names the path in Swift syntax")
    func primaryAssociatedTypeInPath() throws {
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt28BUserDirectory.self).to(Hunt28BUserDirectory.init(store:))
                })
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("Hunt28BUserDirectory -> any Hunt28BStore<Hunt28BUser>"), "\(text)")
        #expect(!text.contains("=="), "\(text)")
        #expect(!text.contains("Self."), "\(text)")
    }

    @Test(
        "keys built from a generic protocol's existential are spelled as source writes them",
        arguments: [
            (BindingKey((any Hunt28BStore<Hunt28BUser>)?.self), "(any Hunt28BStore<Hunt28BUser>)?"),
            (BindingKey([any Hunt28BStore<Hunt28BUser>].self), "[any Hunt28BStore<Hunt28BUser>]"),
            (
                BindingKey(Hunt28BRepository<any Hunt28BStore<Hunt28BUser>>.self),
                "Hunt28BRepository<any Hunt28BStore<Hunt28BUser>>"
            ),
            (BindingKey(Provider<any Hunt28BStore<Hunt28BUser>>.self), "Provider<any Hunt28BStore<Hunt28BUser>>"),
            (BindingKey((any Hunt28BCache<String, Int>).self), "any Hunt28BCache<String, Int>"),
            (BindingKey((any Hunt28BStore<Hunt28BUser>).Type.self), "(any Hunt28BStore<Hunt28BUser>).Type"),
        ])
    func primaryAssociatedTypeShapes(_ key: BindingKey, _ spelled: String) {
        #expect(key.description == spelled)
    }

    // MARK: protocols nested in types

    @Test("a protocol nested in a namespace keeps `any` inside a generic argument")
    func nestedProtocolInGeneric() {
        #expect(BindingKey((any Hunt28BBilling.Gateway).self).description == "any Hunt28BBilling.Gateway")
        #expect(
            BindingKey(Hunt28BBox<any Hunt28BBilling.Gateway>.self).description
                == "Hunt28BBox<any Hunt28BBilling.Gateway>")
        #expect(
            BindingKey(Lazy<any Hunt28BBilling.Gateway>.self).description == "Lazy<any Hunt28BBilling.Gateway>")
    }

    @Test("the metatype of a nested protocol's existential is (any Hunt28BBilling.Gateway).Type, as it compiles")
    func nestedProtocolMetatype() throws {
        let error = try hunt28BMissing((any Hunt28BBilling.Gateway).Type.self)
        #expect(error?.key?.description == "(any Hunt28BBilling.Gateway).Type")
        #expect(
            error?.hint == "bind it in a module: binder.bind((any Hunt28BBilling.Gateway).Type.self).to(...)")
    }

    // MARK: nested generics, variadic generics, compositions, non-ASCII names

    @Test("a generic nested in a generic, inside an optional, an array and a dictionary of a generic")
    func nestedGenericInSugar() {
        #expect(
            BindingKey(Hunt28BBox<Hunt28BOuter<Int>.Inner<String>?>.self).description
                == "Hunt28BBox<Hunt28BOuter<Int>.Inner<String>?>")
        #expect(
            BindingKey(Hunt28BBox<[Hunt28BOuter<Int>.Inner<String>]>.self).description
                == "Hunt28BBox<[Hunt28BOuter<Int>.Inner<String>]>")
        #expect(
            BindingKey(Hunt28BBox<[Hunt28BOuter<Int>.Inner<String>: Int]>.self).description
                == "Hunt28BBox<[Hunt28BOuter<Int>.Inner<String>: Int]>")
    }

    @Test("validation names a missing Hunt28BBox<Hunt28BOuter<Int>.Inner<String>?> in a form that compiles")
    func nestedGenericInPath() throws {
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt28BNestedNeeder.self).to(Hunt28BNestedNeeder.init(box:))
                })
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(
            text.contains("Hunt28BNestedNeeder -> Hunt28BBox<Hunt28BOuter<Int>.Inner<String>?>"), "\(text)")
        #expect(
            text.contains("binder.bind(Hunt28BBox<Hunt28BOuter<Int>.Inner<String>?>.self)"), "\(text)")
    }

    @Test("a variadic generic type is named with its type arguments, not the runtime's Pack{...}")
    func variadicGeneric() throws {
        let error = try hunt28BMissing(Hunt28BPack<Int, String>.self)
        #expect(error?.key?.description == "Hunt28BPack<Int, String>")
        #expect(error?.hint == "bind it in a module: binder.bind(Hunt28BPack<Int, String>.self).to(...)")
    }

    @Test("a class-constrained composition keeps `any` inside a generic argument, and AnyObject compositions too")
    func classComposition() {
        #expect(BindingKey((any Hunt28BBase & Hunt28BAudited).self).description == "any Hunt28BBase & Hunt28BAudited")
        #expect(
            BindingKey(Hunt28BBox<any Hunt28BBase & Hunt28BAudited>.self).description
                == "Hunt28BBox<any Hunt28BBase & Hunt28BAudited>")
        #expect(
            BindingKey(Hunt28BBox<any Hunt28BAudited & AnyObject>.self).description
                == "Hunt28BBox<any Hunt28BAudited & AnyObject>")
    }

    @Test("a protocol whose name is not ASCII keeps `any` inside a generic argument")
    func nonASCIIProtocol() {
        #expect(BindingKey((any Hunt28BÜberStore).self).description == "any Hunt28BÜberStore")
        #expect(BindingKey(Hunt28BBox<any Hunt28BÜberStore>.self).description == "Hunt28BBox<any Hunt28BÜberStore>")
    }

    @Test("typed-throws and global-actor function types are named as written")
    func functionShapes() {
        #expect(
            BindingKey(((Int) throws(Hunt28BFailure) -> String).self).description
                == "(Int) throws(Hunt28BFailure) -> String")
        // Swift 6 makes a global-actor-isolated function type Sendable (SE-0434): the runtime's spelling is right.
        #expect(BindingKey((@MainActor () -> Void).self).description == "@MainActor @Sendable () -> ()")
        #expect(
            BindingKey(Hunt28BBox<(label: Int, store: any Hunt28BAudited)>.self).description
                == "Hunt28BBox<(label: Int, store: any Hunt28BAudited)>")
    }
}
