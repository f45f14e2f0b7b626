extension Recipe {
    /// The collection of a multibinding: builds every element, in binding order.
    static func collection<Element>(of type: Element.Type, elements: [BindingKey]) -> Recipe
    where T == [Element] {
        Recipe(
            dependencies: .known(elements),
            link: { pass, node throws(ProvisionError) in
                guard case .sync(let linker) = pass else {
                    guard case .async(let linker) = pass else { return .noForm }
                    return try collectingAsynchronously(elements, of: Element.self, linker, node)
                }
                let key = node.key
                var plans: [PlanReference<Element>] = []
                for element in elements {
                    plans.append(try linker.plan(for: element, as: Element.self, below: node))
                }
                let linked = plans
                return .sync(
                    node.scoped(
                        Plan { context throws(ProvisionError) in
                            var values: [Element] = []
                            values.reserveCapacity(linked.count)
                            for plan in linked {
                                values.append(try plan.make(context, for: key))
                            }
                            return values
                        }
                    )
                )
            },
            instance: nil
        )
    }
}

extension Injector {
    /// Every element of the multibinding of `type`, in binding order: module order, then the order of
    /// the `multibind` calls in each module.
    ///
    /// ```swift
    /// let plugins = try injector.getAll((any Plugin).self)
    /// ```
    ///
    /// - Returns: The elements; empty when nothing is multibound for `type`.
    /// - Throws: ``ProvisionError`` from building an element.
    public func getAll<T>(_ type: T.Type, named name: String? = nil) throws(ProvisionError) -> [T] {
        let key = BindingKey([T].self, named: name)
        guard let node = lookup(key, as: [T].self) else {
            // Nothing multibound, or the registries were emptied by a shutdown (this injector's or an
            // ancestor's): then, like every request, it throws.
            if isShuttingDown { throw missing(key, path: [key]) }
            return []
        }
        return try node.resolve(.root)
    }

    /// Groups multibinding elements into one collection node per collection key, elements in order.
    ///
    /// - Parameters:
    ///   - modules: Each module's records, in module order.
    ///   - injector: The injector the collection nodes are made for.
    ///   - elementKey: The key each element is taken from, given its record's key: its own, or (for an
    ///     injector made by `overriding`) the original's element it stands for.
    static func collections(
        of modules: [[Binder.Record]],
        injector: Injector,
        elementKey: (BindingKey) -> BindingKey = { $0 }
    ) -> [any AnyNode] {
        var order: [BindingKey] = []
        var elements: [BindingKey: [BindingKey]] = [:]
        var first: [BindingKey: (Binder.Multibinding, SourceLocation)] = [:]
        for records in modules {
            // Indexed, not iterated: reading one field doesn't copy the whole record.
            for index in records.indices {
                guard let multibinding = records[index].multibinding else { continue }
                let key = multibinding.collectionKey
                if elements[key] == nil {
                    order.append(key)
                    first[key] = (multibinding, records[index].location)
                }
                elements[key, default: []].append(elementKey(records[index].key))
            }
        }
        // A child's collection adds to its parent's, as a Dagger subcomponent's does: the nearest
        // ancestor's elements first (shared with it), then the child's own. Not the original of an
        // injector made by `overriding`, whose elements the derived injector re-creates or shares itself.
        let ancestor = injector.moduleParent
        return order.compactMap { key in
            guard let (multibinding, location) = first[key] else { return nil }
            let inherited = ancestor.map { inheritedElements(of: key, from: $0) } ?? []
            return multibinding.makeCollection(inherited + (elements[key] ?? []), location, injector)
        }
    }

    /// The element keys of the collection `key` in `ancestor` or the nearest injector above it that binds
    /// the key; none when that binding is not a multibinding's collection (an ordinary `[T]` binding,
    /// which a child's multibinding hides, as any child binding hides its parent's).
    private static func inheritedElements(of key: BindingKey, from ancestor: Injector) -> [BindingKey] {
        var current: Injector? = ancestor
        while let injector = current {
            if let node = injector.registry.retainedNode(for: key) {
                guard let keys = node.dependencyKeys, !keys.isEmpty, keys.allSatisfy(Binder.isElementKey) else {
                    return []
                }
                return keys
            }
            current = injector.parent
        }
        return []
    }
}
