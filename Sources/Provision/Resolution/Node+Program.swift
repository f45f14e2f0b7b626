public import Synchronization

// A node's program (see ``Program``): the path of a top-level request for a node that has one or may
// get one, and the states of ``Node/linkedProgram``.
extension Node {
    /// ``resolveUnpublished(_:)`` for a linked node that has a ``Program`` or may get one: out of line,
    /// so that the frame of every other request (one per link of a chain of closure bindings, in an
    /// unoptimized build) holds nothing for it, but inlinable, so that it runs specialized for `T` (as
    /// unspecialized generic code, each request instantiated `Plan<T>`'s metadata at run time).
    @inlinable @inline(never)
    func resolveProgrammed(_ context: ResolutionContext) throws(ProvisionError) -> T {
        let program = linkedProgram.load(ordering: .acquiring)
        if program > ProgramState.none {
            return try Program<T>.run(UnsafeRawPointer(bitPattern: program).unsafelyUnwrapped, context)
        }
        if program == ProgramState.allowed {
            return try makeProgram(context)
        }
        return try resolveThroughPlan(context)
    }

    /// Runs the linked plan (see ``plan``), linking first if needed.
    @usableFromInline
    func resolveThroughPlan(_ context: ResolutionContext) throws(ProvisionError) -> T {
        guard let plan else { return try linkAndMake(context) }
        return try plan.make(context)
    }

    /// The first top-level request for the node: links it, then resolves it like later requests will
    /// (with a program when it may have one), so that the first request doesn't nest deeper than later
    /// ones.
    @usableFromInline @inline(never)
    func linkAndResolve(_ context: ResolutionContext) throws(ProvisionError) -> T {
        let plan = try linkReportingFailure()
        guard linkedProgram.load(ordering: .acquiring) == 0 else { return try resolveProgrammed(context) }
        return try plan.make(context)
    }

    /// The first top-level request for a node that may have a ``Program``: makes it (or finds it would
    /// gain nothing), publishes that, and resolves.
    @usableFromInline @inline(never)
    func makeProgram(_ context: ResolutionContext) throws(ProvisionError) -> T {
        var lackedStack = false
        let made = ProgramBuilder.program(for: self, lackedStack: &lackedStack)
        // Too deep in this thread's stack to build it: this request runs the plan (which checks the stack
        // as it goes), and the node stays allowed a program, for a request with more stack.
        if lackedStack { return try resolveThroughPlan(context) }
        let word = made.map { AtomicReference.bits(Unmanaged.passRetained($0)) } ?? ProgramState.none
        let (exchanged, current) = linkedProgram.compareExchange(
            expected: ProgramState.allowed,
            desired: word,
            ordering: .acquiringAndReleasing
        )
        if !exchanged, made != nil, let address = UnsafeRawPointer(bitPattern: word) {
            Unmanaged<Program<T>>.fromOpaque(address).release()
        }
        let published = exchanged ? word : current
        if published > ProgramState.none {
            return try Program<T>.run(UnsafeRawPointer(bitPattern: published).unsafelyUnwrapped, context)
        }
        guard let plan else { return try linkAndMake(context) }
        return try plan.make(context)
    }

    /// Lets top-level requests build the node with a ``Program``: called by a fixed-arity constructor's
    /// link when its plan is its construction alone (see ``isProgrammable``).
    @usableFromInline
    func allowPrograms() {
        _ = linkedProgram.compareExchange(expected: 0, desired: ProgramState.allowed, ordering: .relaxed)
    }
}

/// The states of ``Node/linkedProgram`` that are not a program's address.
@usableFromInline
enum ProgramState {
    /// The node may have a program; none was made yet.
    @inlinable static var allowed: UInt { 1 }
    /// The node's program would gain nothing over its plan: its dependencies are none of them
    /// instructions.
    @inlinable static var none: UInt { 2 }
}
