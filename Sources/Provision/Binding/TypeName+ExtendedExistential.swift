/// Spelling the metatype of a protocol with primary associated types (`any Store<User>.Type`), which the
/// Swift 6.3 runtime can't print: `String(describing:)`, `String(reflecting:)` and `_mangledTypeName` all
/// crash on it, dereferencing a bad pointer while they build its demangling. (Found by hunt 28B: a
/// missing `any Store<User>.Type`, a resolve-time argument of that type, or a graph that binds it,
/// crashed the process.)
///
/// Such a metatype is an extended existential (metadata kind 0x307) whose shape says it is a metatype.
/// Its name is read from the metadata and the shape (`TargetExtendedExistentialTypeShape` in the
/// runtime's `Metadata.h`, part of the stable ABI): the protocols of the shape's requirement signature,
/// each named by its context descriptor, and the generalization arguments that follow the shape in the
/// metadata, in order. Any layout this doesn't expect gives `nil`, and the caller spells the type
/// without it.
extension TypeName {
    /// The shape's flags (`ExtendedExistentialTypeShapeFlags`).
    private enum ShapeFlags {
        static let specialKindMask: UInt32 = 0xFF
        static let metatypeKind: UInt32 = 2
        static let hasGeneralizationSignature: UInt32 = 0x100
        static let hasTypeExpression: UInt32 = 0x200
        static let hasSuggestedValueWitnesses: UInt32 = 0x400
        static let hasImplicitRequirementSignatureParameters: UInt32 = 0x800
    }

    /// `any Store<User>.Type` for the existential metatype of a protocol with primary associated types;
    /// `nil` for any other type, or a layout this doesn't expect.
    static func extendedExistentialMetatypeName(of type: any Any.Type) -> String? {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        guard metadataKind(of: type) == 0x307 else { return nil }
        let shape = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer.self)
        let flags = shape.load(as: UInt32.self)
        guard flags & ShapeFlags.specialKindMask == ShapeFlags.metatypeKind else { return nil }
        // Flags and the existential type's name (4 bytes each), then the requirement signature's header.
        var offset = 8
        let parameterCount = Int(shape.load(fromByteOffset: offset, as: UInt16.self))
        let requirementCount = Int(shape.load(fromByteOffset: offset + 2, as: UInt16.self))
        offset += 8
        var argumentCount = 0
        if flags & ShapeFlags.hasGeneralizationSignature != 0 {
            // The generalization signature's header: its key arguments follow the shape in the metadata.
            argumentCount = Int(shape.load(fromByteOffset: offset + 4, as: UInt16.self))
            offset += 8
        }
        if flags & ShapeFlags.hasTypeExpression != 0 { offset += 4 }
        if flags & ShapeFlags.hasSuggestedValueWitnesses != 0 { offset += 4 }
        if flags & ShapeFlags.hasImplicitRequirementSignatureParameters == 0 {
            offset = (offset + parameterCount + 3) & ~3
        }
        guard requirementCount <= 64, argumentCount <= 16 else { return nil }
        var protocols: [String] = []
        for index in 0..<requirementCount {
            // A requirement: flags, its subject, then (for a conformance) its protocol's descriptor.
            let requirement = shape + offset + 12 * index
            guard requirement.load(as: UInt32.self) & 0x1F == 0 else { continue }
            // An indirectable pointer whose second bit marks an Objective-C protocol, which Linux has
            // none of.
            let field = requirement + 8
            guard field.load(as: Int32.self) & 2 == 0, let descriptor = indirectablePointer(at: field, mask: 3),
                let name = contextName(of: descriptor)
            else { return nil }
            protocols.append(name)
        }
        guard !protocols.isEmpty else { return nil }
        let arguments = (0..<argumentCount).map { index in
            describe(
                unsafeBitCast(
                    metadata.load(fromByteOffset: 16 + 8 * index, as: UnsafeRawPointer.self), to: Any.Type.self))
        }
        let generic = arguments.isEmpty ? "" : "<\(arguments.joined(separator: ", "))>"
        return protocols.count == 1
            ? "any \(protocols[0])\(generic).Type" : "any (\(protocols.joined(separator: " & "))\(generic)).Type"
    }

    /// A protocol's name from its context descriptor, with the types it is nested in and without its
    /// module: each descriptor has its flags, a relative pointer to its parent and one to its name.
    private static func contextName(of descriptor: UnsafeRawPointer) -> String? {
        var names: [String] = []
        var current: UnsafeRawPointer? = descriptor
        while let context = current, names.count < 8 {
            // Kind 0: a module, whose name is not written.
            if context.load(as: UInt32.self) & 0x1F == 0 { break }
            guard let name = relativePointer(at: context + 8) else { return nil }
            names.insert(String(cString: name.assumingMemoryBound(to: CChar.self)), at: 0)
            current = indirectablePointer(at: context + 4, mask: 1)
        }
        return names.isEmpty ? nil : names.joined(separator: ".")
    }

    /// The address a 32-bit relative indirectable pointer at `field` points to; `nil` for a null one.
    /// Its low bit says whether it points to the address (in another image's table) rather than to the
    /// target; the bits of `mask` above it hold other flags.
    private static func indirectablePointer(at field: UnsafeRawPointer, mask: Int32) -> UnsafeRawPointer? {
        let raw = field.load(as: Int32.self)
        let distance = Int(raw & ~mask)
        guard distance != 0 else { return nil }
        return raw & 1 == 0 ? field + distance : (field + distance).load(as: UnsafeRawPointer?.self)
    }

    /// The address a 32-bit relative pointer at `field` points to; `nil` for a null one.
    private static func relativePointer(at field: UnsafeRawPointer) -> UnsafeRawPointer? {
        let distance = Int(field.load(as: Int32.self))
        return distance == 0 ? nil : field + distance
    }
}
