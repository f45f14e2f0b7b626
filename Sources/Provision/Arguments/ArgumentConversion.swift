/// A request's arguments seen without their types: each value, and the type the request passed it as.
///
/// The type matters as much as the value. An `Int?` holding 5 is not an `Int` to a call, though `5 as?
/// Int` succeeds on its value; an `any Shape` holding a square is not a `Square`, nor a `Vehicle` that is
/// a truck a `Truck`. A request is built by the binding whose declared types its arguments convert to
/// *as a call would convert them* (see ``ArgumentConversion``), whatever their values.
struct ArgumentValues {
    /// The values, in order.
    let values: [Any]
    /// The type each value was passed as (its static type, not the type of what it holds).
    let types: [any Any.Type]

    init<each Argument>(_ arguments: repeat each Argument) {
        var values: [Any] = []
        var types: [any Any.Type] = []
        for argument in repeat each arguments {
            values.append(argument)
        }
        for type in repeat (each Argument).self {
            types.append(type)
        }
        self.values = values
        self.types = types
    }

    var count: Int { values.count }
}

/// Whether a value passed as one type converts to a declared argument type the way a call converts it:
/// for every value of the given type, not only for the one at hand.
///
/// A call converts a value to an optional of its type, an instance of a class to a superclass, a value
/// of a conforming type to a protocol (or `Any`, or a class to `AnyObject`), an existential to one of
/// fewer protocols, a metatype to a supertype's, a `@Sendable` function to a plain one, and an array to an
/// array of a type its elements convert to. It never unwraps an optional, opens an existential to a
/// concrete type or to an unrelated protocol, or downcasts: a dynamic cast (`as?`) does all three when
/// the value allows it, so a request was built or refused depending on what its arguments held (found by
/// hunt 24A), and a `nil` of one optional type was taken for a `nil` of any other (hunt 24B). These rules
/// decide by the given type alone where the value could; where a protocol is declared, the cast of the
/// value then decides whether the given type conforms, which answers the same for all values of the
/// given type but in one case, a class that doesn't conform passed an instance of a subclass that does
/// (the runtime can't be asked about the class alone).
enum ArgumentConversion {
    /// Whether a value of type `given` converts to `declared` as a call's argument would.
    static func converts<Declared>(_ given: any Any.Type, to declared: Declared.Type) -> Bool {
        if ObjectIdentifier(given) == ObjectIdentifier(declared) { return true }
        if let optional = declared as? any OptionalType.Type {
            // A value converts to an optional of a type it converts to; an optional, to an optional of a
            // type its wrapped type converts to.
            if converts(given, to: optional.wrappedType) { return true }
            guard let givenOptional = given as? any OptionalType.Type else { return false }
            return converts(givenOptional.wrappedType, to: optional.wrappedType)
        }
        // Unwrapping an optional depends on the value.
        if given is any OptionalType.Type { return false }
        let givenKind = kind(of: given)
        if kind(of: declared) == extendedExistentialKind {
            // A protocol with its primary associated types (`any Store<User>`): a concrete type converts
            // when it conforms with those types, which the value's cast tells, alike for every value of
            // the type; another existential only when it is the same type. (Found by hunt 28B: a
            // concrete store was refused.)
            return Existential(given) == nil && givenKind != extendedExistentialKind
        }
        if let target = Existential(declared) {
            if let source = Existential(given) { return source.converts(to: target) }
            // A concrete type to a protocol it conforms to (the value's cast tells, alike for every value
            // of the type), or `Any`; to a class-bound one, only a class.
            return !target.isClassBound || (given is AnyObject.Type && givenKind != existentialMetatypeKind)
        }
        if let source = Existential(given) {
            // An existential with a superclass constraint (`any Puppy & Audited`) converts to that class
            // and its superclasses, whatever it holds. (Found by hunt 28B.) Opening any other existential
            // to a concrete type depends on the value.
            guard source.superclass != 0, declared is AnyObject.Type else { return false }
            return Existential.isSubclass(source.superclass, of: unsafeBitCast(declared, to: UInt.self))
        }
        if givenKind == extendedExistentialKind { return false }
        switch (givenKind, kind(of: declared)) {
        case (metatypeKind, metatypeKind):
            // A metatype to a metatype: as their instance types convert (a class's to a superclass's).
            return converts(instanceType(ofMetatype: given), to: instanceType(ofMetatype: declared))
        case (existentialMetatypeKind, metatypeKind):
            // `any P.Type` to a concrete metatype depends on the value.
            return false
        case (metatypeKind, existentialMetatypeKind):
            // A type's metatype to `Any.Type` or a protocol's: the value's cast tells, alike for every
            // value of the type.
            return true
        case (existentialMetatypeKind, existentialMetatypeKind):
            // `any P.Type` to `any Q.Type`: as the existentials convert.
            guard let source = instanceType(ofExistentialMetatype: given).flatMap(Existential.init),
                let target = instanceType(ofExistentialMetatype: declared).flatMap(Existential.init)
            else {
                return false
            }
            return source.converts(to: target)
        case (functionKind, functionKind):
            // A function's own type, with its `@Sendable` or not: the value's cast tells.
            return true
        default:
            break
        }
        // From class to class, only upcasts: a downcast depends on the value.
        if given is AnyObject.Type { return declared is AnyObject.Type && given is Declared.Type }
        // An array to an array of a type its elements convert to.
        if let givenArray = given as? any ArrayType.Type, let declaredArray = declared as? any ArrayType.Type {
            return converts(givenArray.elementType, to: declaredArray.elementType)
        }
        // Between other concrete types, a call converts nothing (two optionals' `nil`s cast to each other).
        return false
    }

    /// Whether `type` is an existential: a protocol type, a composition, `Any` or `AnyObject`.
    static func isExistential(_ type: any Any.Type) -> Bool {
        Existential(type) != nil
    }

    // Metadata kinds (the Swift ABI's `MetadataKind`, docs/ABI/TypeMetadata.rst in the Swift repository):
    // the first word of a type's metadata. A class's first word is 0 without Objective-C, an `isa`
    // pointer with it, never one of these.
    private static let functionKind: UInt = 0x302
    private static let existentialKind: UInt = 0x303
    private static let metatypeKind: UInt = 0x304
    private static let existentialMetatypeKind: UInt = 0x306
    private static let extendedExistentialKind: UInt = 0x307

    private static func kind(of type: any Any.Type) -> UInt {
        TypeName.metadataKind(of: type)
    }

    /// The instance type of a metatype (`Car` for `Car.Type`): the word after its kind.
    private static func instanceType(ofMetatype type: any Any.Type) -> any Any.Type {
        let instance = unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 8, as: UnsafeRawPointer.self)
        return unsafeBitCast(instance, to: Any.Type.self)
    }

    /// The instance type of an existential metatype (`any P` for `any P.Type`): the word after its
    /// kind.
    private static func instanceType(ofExistentialMetatype type: any Any.Type) -> (any Any.Type)? {
        guard kind(of: type) == existentialMetatypeKind else { return nil }
        let instance = unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 8, as: UnsafeRawPointer.self)
        return unsafeBitCast(instance, to: Any.Type.self)
    }

    /// An existential type as its metadata describes it (`TargetExistentialTypeMetadata` in the Swift
    /// runtime): its flags, then the number of its protocols, then its superclass constraint (if any) and
    /// its protocols' descriptors.
    private struct Existential {
        /// Whether only classes conform (`AnyObject`, a composition with it or with a class-bound
        /// protocol).
        let isClassBound: Bool
        /// The superclass constraint's metadata (`any Vehicle & P`), or 0.
        let superclass: UInt
        /// The protocols' descriptors.
        let protocols: Set<UInt>

        init?(_ type: any Any.Type) {
            guard ArgumentConversion.kind(of: type) == ArgumentConversion.existentialKind else { return nil }
            let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
            let flags = metadata.load(fromByteOffset: 8, as: UInt32.self)
            let count = Int(metadata.load(fromByteOffset: 12, as: UInt32.self))
            // The flag is set when the existential is *not* class-constrained.
            isClassBound = flags & 0x8000_0000 == 0
            var offset = 16
            if flags & 0x4000_0000 != 0 {
                superclass = metadata.load(fromByteOffset: offset, as: UInt.self)
                offset += 8
            } else {
                superclass = 0
            }
            var protocols: Set<UInt> = []
            for index in 0..<count {
                protocols.insert(metadata.load(fromByteOffset: offset + 8 * index, as: UInt.self))
            }
            self.protocols = protocols
        }

        /// Whether every value of this existential is a value of `target`: `target` asks for no more
        /// protocols, no class where this allows any type, and no other superclass.
        func converts(to target: Existential) -> Bool {
            target.protocols.isSubset(of: protocols) && (!target.isClassBound || isClassBound)
                && (target.superclass == 0 || Existential.isSubclass(superclass, of: target.superclass))
        }

        /// Whether the class whose metadata is at `subclass` is the class at `superclass` or inherits
        /// from it; `false` when `subclass` is 0 (no superclass constraint). (Found by hunt 28B: only
        /// the same class was accepted.)
        static func isSubclass(_ subclass: UInt, of superclass: UInt) -> Bool {
            guard subclass != 0, let target = unsafeBitCast(superclass, to: Any.Type.self) as? AnyClass else {
                return false
            }
            var current: AnyClass? = unsafeBitCast(subclass, to: Any.Type.self) as? AnyClass
            while let type = current {
                if ObjectIdentifier(type) == ObjectIdentifier(target) { return true }
                current = _getSuperclass(type)
            }
            return false
        }
    }
}
