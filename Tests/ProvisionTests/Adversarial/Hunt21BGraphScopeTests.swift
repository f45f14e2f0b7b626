import Testing

@testable import Provision

// Hunt 21B, part 2: what users of Swinject's and Resolver's `.graph` scope expect of a diamond
// (A -> B, A -> C, B -> D, C -> D), against what Provision documents: no graph scope, so a transient D
// is built once per path (twice in the diamond), a singleton D once, and a scoped D once per
// ServiceScope. The same through constructors, closures, multibindings of width 50, Provider, Lazy and
// ObjectFactory.

final class Hunt21BLeaf: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

final class Hunt21BLeft: Sendable {
    let leaf: Hunt21BLeaf
    init(leaf: Hunt21BLeaf) { self.leaf = leaf }
}

final class Hunt21BRight: Sendable {
    let leaf: Hunt21BLeaf
    init(leaf: Hunt21BLeaf) { self.leaf = leaf }
}

final class Hunt21BTop: Sendable {
    let left: Hunt21BLeft
    let right: Hunt21BRight
    init(left: Hunt21BLeft, right: Hunt21BRight) {
        self.left = left
        self.right = right
    }
}

final class Hunt21BTelemetryLeaf: Sendable {
    let leaf: Hunt21BLeaf?
    init(leaf: Hunt21BLeaf?) { self.leaf = leaf }
}

/// A unit of work whose scoped leaf is injected into properties, directly and through handles.
final class Hunt21BUnit: PropertyInjectable, @unchecked Sendable {
    var leaf: Hunt21BLeaf?
    var lazyLeaf: Lazy<Hunt21BLeaf>?
    var leaves: Provider<Hunt21BLeaf>?
    private(set) var hooks = 0

    class var injectedProperties: [InjectedProperty] {
        [.inject(\Hunt21BUnit.leaf), .inject(\Hunt21BUnit.lazyLeaf), .inject(\Hunt21BUnit.leaves)]
    }

    func didInjectDependencies() { hooks += 1 }
}

final class Hunt21BBranch: Sendable {
    let leaf: Hunt21BLeaf
    init(leaf: Hunt21BLeaf) { self.leaf = leaf }
}

final class Hunt21BWideTop: Sendable {
    let branches: [Hunt21BBranch]
    init(branches: [Hunt21BBranch]) { self.branches = branches }
}

final class Hunt21BHandleTop: Sendable {
    let left: Hunt21BLeft
    let leaves: Provider<Hunt21BLeaf>
    let lazyLeaf: Lazy<Hunt21BLeaf>
    let otherLazyLeaf: Lazy<Hunt21BLeaf>
    let factory: ObjectFactory
    init(
        left: Hunt21BLeft, leaves: Provider<Hunt21BLeaf>, lazyLeaf: Lazy<Hunt21BLeaf>,
        otherLazyLeaf: Lazy<Hunt21BLeaf>, factory: ObjectFactory
    ) {
        self.left = left
        self.leaves = leaves
        self.lazyLeaf = lazyLeaf
        self.otherLazyLeaf = otherLazyLeaf
        self.factory = factory
    }
}

/// A node of a binary diamond lattice: every node of level k depends on both nodes of level k + 1.
final class Hunt21BLatticeNode: Sendable {
    let children: [Hunt21BLatticeNode]
    let leaf: Hunt21BLeaf?
    init(children: [Hunt21BLatticeNode], leaf: Hunt21BLeaf?) {
        self.children = children
        self.leaf = leaf
    }

    /// Every leaf reachable from this node, with repetitions.
    var leaves: [Hunt21BLeaf] { (leaf.map { [$0] } ?? []) + children.flatMap(\.leaves) }
}

@Suite("Hunt 21B: graph-scope semantics of a diamond", .timeLimit(.minutes(2)))
struct Hunt21BGraphScopeTests {
    /// Runs `body` in a new scope of `injector`, then closes the scope.
    static func inScope<R>(_ injector: Injector, _ body: (ServiceScope) throws -> R) throws -> R {
        let scope = injector.makeScope()
        let result = try body(scope)
        try scope.close()
        return result
    }

    /// A diamond of constructors whose leaf has `scope`; `built` counts leaves.
    static func diamond(_ scope: Scope, _ built: Counter) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt21BLeaf.self).to { Hunt21BLeaf(serial: built.increment()) }.in(scope)
            binder.bind(Hunt21BLeft.self).to(Hunt21BLeft.init(leaf:))
            binder.bind(Hunt21BRight.self).to(Hunt21BRight.init(leaf:))
            binder.bind(Hunt21BTop.self).to(Hunt21BTop.init(left:right:))
        }
    }

    @Test("a transient leaf in a diamond is built once per path: two per request, no graph sharing")
    func transientDiamond() throws {
        let built = Counter()
        let injector = try Injector(Self.diamond(.transient, built))
        let top = try injector.get(Hunt21BTop.self)
        #expect(top.left.leaf !== top.right.leaf)
        #expect(built.value == 2)
        _ = try injector.get(Hunt21BTop.self)
        #expect(built.value == 4)
    }

    @Test("a singleton leaf in a diamond is built once for every request")
    func singletonDiamond() throws {
        let built = Counter()
        let injector = try Injector(Self.diamond(.singleton, built))
        let first = try injector.get(Hunt21BTop.self)
        let second = try injector.get(Hunt21BTop.self)
        #expect(first.left.leaf === first.right.leaf)
        #expect(second.right.leaf === first.left.leaf)
        #expect(built.value == 1)
    }

    @Test("a scoped leaf in a diamond: one per scope, shared by both paths and by later requests in it")
    func scopedDiamond() throws {
        let built = Counter()
        let injector = try Injector(Self.diamond(.scoped, built))
        let first = injector.makeScope()
        let second = injector.makeScope()
        let a = try first.get(Hunt21BTop.self)
        let b = try first.get(Hunt21BTop.self)
        let c = try second.get(Hunt21BTop.self)
        #expect(a.left.leaf === a.right.leaf)
        #expect(b.left.leaf === a.left.leaf)
        #expect(c.left.leaf === c.right.leaf)
        #expect(c.left.leaf !== a.left.leaf)
        #expect(built.value == 2)
        try first.close()
        try second.close()
    }

    @Test("the same diamond written with closures: transient twice, scoped once per scope")
    func closureDiamond() throws {
        for scope in [Scope.transient, .scoped] {
            let built = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt21BLeaf.self).to { Hunt21BLeaf(serial: built.increment()) }.in(scope)
                    binder.bind(Hunt21BLeft.self).to(dependencies: [BindingKey(Hunt21BLeaf.self)]) { resolver in
                        Hunt21BLeft(leaf: try resolver.get())
                    }
                    binder.bind(Hunt21BRight.self).to { resolver in Hunt21BRight(leaf: try resolver.get()) }
                    binder.bind(Hunt21BTop.self).to { resolver in
                        Hunt21BTop(left: try resolver.get(), right: try resolver.get())
                    }
                })
            let top = try Self.inScope(injector) { scope in try scope.get(Hunt21BTop.self) }
            if scope == .scoped {
                #expect(top.left.leaf === top.right.leaf)
                #expect(built.value == 1)
            } else {
                #expect(top.left.leaf !== top.right.leaf)
                #expect(built.value == 2)
            }
        }
    }

    @Test("width 50: fifty multibound branches over one leaf; transient 50 builds, scoped 1 per scope")
    func wideDiamond() throws {
        for scope in [Scope.transient, .scoped, .singleton] {
            let built = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt21BLeaf.self).to { Hunt21BLeaf(serial: built.increment()) }.in(scope)
                    for index in 0..<50 {
                        if index.isMultiple(of: 2) {
                            binder.multibind(Hunt21BBranch.self).to(Hunt21BBranch.init(leaf:))
                        } else {
                            binder.multibind(Hunt21BBranch.self).to { resolver in
                                Hunt21BBranch(leaf: try resolver.get())
                            }
                        }
                    }
                    binder.bind(Hunt21BWideTop.self).to(Hunt21BWideTop.init(branches:))
                })
            let first = injector.makeScope()
            let top = try first.get(Hunt21BWideTop.self)
            #expect(top.branches.count == 50)
            let distinct = Set(top.branches.map { ObjectIdentifier($0.leaf) }).count
            let second = injector.makeScope()
            let other = try second.get(Hunt21BWideTop.self)
            switch scope {
            case .transient:
                #expect(distinct == 50)
                #expect(built.value == 100)
            case .scoped:
                #expect(distinct == 1, "one leaf per scope")
                #expect(other.branches.allSatisfy { $0.leaf === other.branches[0].leaf })
                #expect(other.branches[0].leaf !== top.branches[0].leaf)
                #expect(built.value == 2)
            default:
                #expect(distinct == 1)
                #expect(other.branches[0].leaf === top.branches[0].leaf)
                #expect(built.value == 1)
            }
            try first.close()
            try second.close()
        }
    }

    @Test("a binary lattice of depth 8: a transient leaf is built once per path (256), a scoped leaf once")
    func deepLattice() throws {
        let depth = 8
        for scope in [Scope.transient, .scoped] {
            let built = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt21BLeaf.self).to { Hunt21BLeaf(serial: built.increment()) }.in(scope)
                    for level in 0...depth {
                        for side in ["a", "b"] {
                            binder.bind(Hunt21BLatticeNode.self, named: "\(level)\(side)").to { resolver in
                                if level == depth { return Hunt21BLatticeNode(children: [], leaf: try resolver.get()) }
                                return Hunt21BLatticeNode(
                                    children: [
                                        try resolver.get(Hunt21BLatticeNode.self, named: "\(level + 1)a"),
                                        try resolver.get(Hunt21BLatticeNode.self, named: "\(level + 1)b"),
                                    ],
                                    leaf: nil)
                            }
                        }
                    }
                })
            let root = try Self.inScope(injector) { scope in try scope.get(Hunt21BLatticeNode.self, named: "0a") }
            let leaves = root.leaves
            #expect(leaves.count == 1 << depth)
            let distinct = Set(leaves.map { ObjectIdentifier($0) }).count
            #expect(distinct == (scope == .scoped ? 1 : 1 << depth), "\(scope)")
            #expect(built.value == (scope == .scoped ? 1 : 1 << depth), "\(scope)")
        }
    }

    @Test("through handles: Provider, two Lazy handles and an ObjectFactory made in a scope")
    func handlesInDiamond() throws {
        for scope in [Scope.transient, .scoped] {
            let built = Counter()
            let injector = try Injector(
                Self.diamond(scope, built),
                ClosureModule { binder in
                    binder.bind(Hunt21BHandleTop.self).to(
                        Hunt21BHandleTop.init(left:leaves:lazyLeaf:otherLazyLeaf:factory:))
                })
            try Self.inScope(injector) { serviceScope in
                let top = try serviceScope.get(Hunt21BHandleTop.self)
                let fromProvider = try top.leaves.get()
                let again = try top.leaves.get()
                let lazy = try top.lazyLeaf.value
                let otherLazy = try top.otherLazyLeaf.value
                let fromFactory = try top.factory.get(Hunt21BLeaf.self)
                #expect(try top.lazyLeaf.value === lazy, "a Lazy resolves once")
                if scope == .scoped {
                    let all = [top.left.leaf, fromProvider, again, lazy, otherLazy, fromFactory]
                    #expect(all.allSatisfy { $0 === top.left.leaf }, "the scope's one leaf, through every handle")
                    #expect(built.value == 1)
                } else {
                    let all = [top.left.leaf, fromProvider, again, lazy, otherLazy, fromFactory]
                    #expect(Set(all.map { ObjectIdentifier($0) }).count == 6, "a new leaf per path and per get")
                    #expect(built.value == 6)
                }
            }
        }
    }

    @Test("a scoped leaf needed by a child's binding and the parent's: one instance in a child's scope")
    func scopedDiamondAcrossChild() throws {
        let built = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BLeaf.self).to { Hunt21BLeaf(serial: built.increment()) }.in(.scoped)
                binder.bind(Hunt21BLeft.self).to(Hunt21BLeft.init(leaf:))
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt21BRight.self).to(Hunt21BRight.init(leaf:))
                binder.bind(Hunt21BTop.self).to(Hunt21BTop.init(left:right:))
            })
        let top = try Self.inScope(child) { scope in try scope.get(Hunt21BTop.self) }
        #expect(top.left.leaf === top.right.leaf)
        #expect(built.value == 1)
    }
    @Test("a scoped delegation to a transient target in a diamond: one per scope; the target stays transient")
    func scopedDelegationDiamond() throws {
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BLeaf.self).to { Hunt21BLeaf(serial: built.increment()) }
                binder.bind(Hunt21BLeaf.self, named: "request").to(binding: Hunt21BLeaf.self).in(.scoped)
                binder.bind(Hunt21BLeft.self).to { resolver in
                    Hunt21BLeft(leaf: try resolver.get(Hunt21BLeaf.self, named: "request"))
                }
                binder.bind(Hunt21BRight.self).to { resolver in
                    Hunt21BRight(leaf: try resolver.get(Hunt21BLeaf.self, named: "request"))
                }
                binder.bind(Hunt21BTop.self).to(Hunt21BTop.init(left:right:))
            })
        let (top, direct) = try Self.inScope(injector) { scope in
            (try scope.get(Hunt21BTop.self), try scope.get(Hunt21BLeaf.self))
        }
        #expect(top.left.leaf === top.right.leaf)
        #expect(direct !== top.left.leaf)
        #expect(built.value == 2)
    }

    @Test("a scoped multibound element reached through two lists of one diamond: one instance per scope")
    func scopedElementInDiamond() throws {
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind(Hunt21BBranch.self).to { Hunt21BBranch(leaf: Hunt21BLeaf(serial: built.increment())) }
                    .in(.scoped)
                binder.multibind(Hunt21BBranch.self).to { Hunt21BBranch(leaf: Hunt21BLeaf(serial: built.increment())) }
                binder.bind(Hunt21BWideTop.self, named: "left").to { resolver in
                    Hunt21BWideTop(branches: try resolver.get([Hunt21BBranch].self))
                }
                binder.bind(Hunt21BWideTop.self).to(Hunt21BWideTop.init(branches:))
            })
        let (left, right) = try Self.inScope(injector) { scope in
            (try scope.get(Hunt21BWideTop.self, named: "left"), try scope.get(Hunt21BWideTop.self))
        }
        #expect(left.branches.count == 2 && right.branches.count == 2)
        #expect(left.branches.first === right.branches.first, "the scoped element")
        #expect(left.branches.last !== right.branches.last, "the transient element")
        #expect(built.value == 3)
    }

    @Test("an optional dependency on a scoped binding: the scope's instance inside, outsideScope (not nil) outside")
    func optionalScoped() throws {
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BLeaf.self).to { Hunt21BLeaf(serial: built.increment()) }.in(.scoped)
                binder.bind(Hunt21BTelemetryLeaf.self).to(Hunt21BTelemetryLeaf.init(leaf:))
            })
        let (a, b) = try Self.inScope(injector) { scope in
            (try scope.get(Hunt21BTelemetryLeaf.self), try scope.get(Hunt21BTelemetryLeaf.self))
        }
        #expect(a.leaf != nil && a.leaf === b.leaf)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt21BTelemetryLeaf.self) }
        #expect(error?.code == .outsideScope)
        let optional = #expect(throws: ProvisionError.self) { try injector.get(Hunt21BLeaf?.self) }
        #expect(optional?.code == .outsideScope)
        #expect(built.value == 1)
    }
    @Test("property injection in a scope: a value, a Lazy and a Provider property all get the scope's instance")
    func scopedPropertyInjection() throws {
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BLeaf.self).to { Hunt21BLeaf(serial: built.increment()) }.in(.scoped)
                binder.bind(Hunt21BUnit.self).to(Hunt21BUnit.init)
                binder.bind(Hunt21BUnit.self, named: "closure").to { resolver in
                    let unit = Hunt21BUnit()
                    try resolver.injectDependencies(into: unit)
                    return unit
                }
            })
        let scope = injector.makeScope()
        let leaf = try scope.get(Hunt21BLeaf.self)
        for unit in [try scope.get(Hunt21BUnit.self), try scope.get(Hunt21BUnit.self, named: "closure")] {
            #expect(unit.leaf === leaf)
            #expect(try unit.lazyLeaf?.value === leaf)
            #expect(try unit.leaves?.get() === leaf)
            #expect(unit.hooks == 1)
        }
        try scope.close()
        #expect(built.value == 1)
        let outside = #expect(throws: ProvisionError.self) { try injector.injectDependencies(into: Hunt21BUnit()) }
        #expect(outside?.code == .outsideScope, "\(String(describing: outside))")
    }
    @Test("a singleton whose injected property is scoped is a captive dependency, found at creation")
    func captiveProperty() throws {
        let built = Counter()
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt21BLeaf.self).to { Hunt21BLeaf(serial: built.increment()) }.in(.scoped)
                    binder.bind(Hunt21BUnit.self).to(Hunt21BUnit.init).in(.singleton)
                })
        }
        let all = [error].compactMap { $0 } + (error?.underlyingErrors ?? [])
        let captive = all.first { $0.code == .captiveDependency }
        #expect(captive != nil, "\(String(describing: error))")
        #expect(captive?.path.first == BindingKey(Hunt21BUnit.self))
        #expect(captive?.path.last == BindingKey(Hunt21BLeaf.self))
        #expect(built.value == 0)
    }
}
