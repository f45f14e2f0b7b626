import CProvisionStack
import Synchronization

/// Makes a node's ``Program``: walks the node's linked subgraph depth first, as its plan would run, and
/// asks each transient constructor binding on the way for an instruction (the recipe's
/// ``LinkPass/program(_:)`` pass), keeping track of where each instruction leaves its value on the
/// program's value stack.
///
/// For each dependency of a node it emits, the builder decides how the node's instruction gets the
/// value (``Kind``):
/// - **stacked:** a transient constructor binding that ``Node/isProgrammable``: its own instructions
///   come first, and the node's instruction takes the value they left on the stack;
/// - **pushed:** any other dependency that comes before a stacked one in the initializer's parameter
///   order: an instruction of its own resolves it (through its node or plan, as a plan would) and puts
///   it on the stack, so that values are built in the order the plans build them;
/// - **inline:** any other dependency after the last stacked one: the node's instruction resolves it
///   itself, through its node or plan.
///
/// An instruction therefore takes every stacked value before it resolves anything that can fail,
/// which is what lets ``Program/unwind(_:_:)`` know exactly which values are still on the stack when one
/// fails. A builder is used by one thread for one program and then dropped; programs are made only
/// from linked nodes, so there is nothing to check: the linker found every binding and cycle already.
@usableFromInline
final class ProgramBuilder {
    /// The most instructions a program gets: below that many, a node's dependencies become
    /// instructions; beyond, they stay plans (which make programs of their own when requested at the
    /// top level). Bounds the memory of the programs of a long chain, each of whose bindings may be
    /// requested.
    static let instructionLimit = 4_096

    /// The least height (see ``Node/height``) a node's subgraph must have for the node to get a program.
    /// A program pays off where nested plans would nest deep: its instructions are steps of its own,
    /// copies of the ones the plans share, so a shallow subgraph runs faster through the plans (the
    /// mixed daemon graph, 8 deep, touched three times as many cache lines with programs:
    /// callgrind's cache model counted 760 first-level misses per operation against 227). Tests of
    /// programs lower it for their small graphs; whether a node runs a program or its plan changes
    /// nothing but speed.
    static let minimumHeight = Atomic<Int>(32)

    /// How an instruction gets one of its node's dependencies (see the type's documentation).
    private enum Kind {
        case stacked
        case pushed
        case inline
    }

    /// A node being emitted: how it gets each dependency, the next one its recipe will ask for, and the
    /// instructions whose values it takes.
    private struct Frame {
        let kinds: [Kind]
        var next = 0
        var inputs: [Int] = []
    }

    /// A value on the stack while the program is made: the instruction that leaves it there, and the
    /// bytes it takes.
    private struct StackedValue {
        let instruction: Int
        let offset: Int
        let end: Int
    }

    private var instructions: [Instruction] = []
    private var consumers: [Int] = []
    private var outputs: [ProgramOutput] = []
    private var keys: [BindingKey] = []
    private var frames: [Frame] = []
    private var stack: [StackedValue] = []
    private var stackSize = 0
    private var stackAlignment = 16
    /// Set when an instruction's inputs were not on top of the stack: never, unless a recipe asked for
    /// its dependencies out of order; the program is then dropped.
    private var isInconsistent = false

    /// The most instructions this builder makes (see ``instructionLimit``).
    private let limit: Int
    /// The instructions decided on so far: the ones made, and the ones their nodes will make (a node's
    /// instruction is made after its dependencies').
    private var planned = 0
    /// Whether building stopped because the thread's stack ran low (see
    /// ``program(for:limit:lackedStack:)``).
    private var lackedStack = false

    private init(limit: Int) {
        self.limit = limit
    }

    /// The program of `root`, a linked node that ``Node/isProgrammable``, of at most `limit` instructions
    /// (give or take the instructions of the node that reaches it); `nil` when none of its dependencies
    /// would be an instruction (its plan then does as well), or when its recipe gives no instruction after
    /// all.
    static func program<T>(for root: Node<T>, limit: Int = instructionLimit) -> Program<T>? {
        var lackedStack = false
        return program(for: root, limit: limit, lackedStack: &lackedStack)
    }

    /// ``program(for:limit:)``, which also says whether it gave up for lack of stack: building walks the
    /// subgraph recursively, one level of this thread's stack per instruction (several kilobytes per
    /// level in a debug build), so it stops where a resolution would stop with `depthExceeded`, while
    /// the thread still has ``StackGuard/margin`` left. The request then runs the plans, which check the
    /// stack as they go; a later request, on a thread with more stack, may build the program.
    static func program<T>(for root: Node<T>, limit: Int = instructionLimit, lackedStack: inout Bool) -> Program<T>? {
        guard root.height >= minimumHeight.load(ordering: .relaxed) else { return nil }
        let builder = ProgramBuilder(limit: limit)
        let kinds = builder.kinds(of: root)
        guard kinds.contains(where: { if case .stacked = $0 { true } else { false } }) else {
            return nil
        }
        do {
            try builder.emit(root, kinds: kinds)
        } catch {
            lackedStack = builder.lackedStack
            return nil
        }
        let count = builder.instructions.count
        guard count > 1, !builder.isInconsistent, builder.consumers.count == count, builder.outputs.count == count
        else { return nil }
        builder.consumers[count - 1] = count
        return Program(
            instructions: builder.instructions,
            consumers: builder.consumers,
            outputs: builder.outputs,
            keys: builder.keys,
            stackSize: max(builder.stackSize, 1),
            stackAlignment: builder.stackAlignment
        )
    }

    /// How `node`'s instruction gets each of its static dependencies.
    private func kinds<T>(of node: Node<T>) -> [Kind] {
        guard case .known(let keys) = node.dependencies else { return [] }
        let registry = node.injector.registry
        var stacked = keys.map { key -> Bool in
            guard planned < limit, let dependency = registry.retainedNode(for: key), dependency.isProgrammable else {
                return false
            }
            planned += 1
            return true
        }
        guard let last = stacked.lastIndex(of: true) else { return keys.map { _ in .inline } }
        for index in stacked.indices where index > last {
            stacked[index] = false
        }
        return stacked.indices.map { index in
            stacked[index] ? .stacked : (index < last ? .pushed : .inline)
        }
    }

    /// Emits `node`'s instructions: its stacked dependencies', then its own.
    private func emit<T>(_ node: Node<T>, kinds: [Kind]? = nil) throws(ProvisionError) {
        // One level deeper in the walk (emit, link, reference, emit): stop while the stack still has the
        // margin a resolution keeps, instead of overflowing it.
        guard c_provision_stack_remaining() >= StackGuard.margin else {
            lackedStack = true
            throw ProvisionError.recovered(ProgramUnavailable())
        }
        frames.append(Frame(kinds: kinds ?? self.kinds(of: node)))
        let linked = try node.link(.program(self), node)
        frames.removeLast()
        guard case .instruction(let instruction) = linked else {
            throw ProvisionError.recovered(ProgramUnavailable())
        }
        instructions.append(instruction)
    }

    /// How the instruction being made for `dependent` gets its next dependency, of type `D`: called by
    /// the recipe's program pass once per parameter, in parameter order, before ``output(of:)``.
    @usableFromInline
    func reference<D, P>(for type: D.Type, below dependent: Node<P>) throws(ProvisionError) -> PlanReference<D> {
        guard let last = frames.indices.last, frames[last].next < frames[last].kinds.count else {
            throw ProvisionError.recovered(ProgramUnavailable())
        }
        let kind = frames[last].kinds[frames[last].next]
        frames[last].next += 1
        let key = BindingKey(type)
        guard let node = dependent.injector.lookup(key, as: type), let plan = node.plan else {
            throw ProvisionError.recovered(ProgramUnavailable())
        }
        switch kind {
        case .inline:
            // A dependency that would have been an instruction, but for the program's size: through its
            // own program, so that a long chain nests a few programs instead of one plan per binding.
            if node.isProgrammable, planned >= limit {
                return PlanReference(programOf: node)
            }
            return Linker.reference(to: node, plan: plan)
        case .stacked:
            try emit(node)
        case .pushed:
            let reference = Linker.reference(to: node, plan: plan)
            let offset = push(D.self, key: dependent.key)
            instructions.append(
                Instruction { context, stack throws(ProvisionError) in
                    (stack + offset).initializeMemory(as: D.self, to: try reference.make(context))
                }
            )
        }
        guard let value = stack.last else { throw ProvisionError.recovered(ProgramUnavailable()) }
        frames[last].inputs.append(value.instruction)
        return PlanReference(stackedAt: value.offset)
    }

    /// Where the instruction being made for `node` leaves its value: called by the recipe's program
    /// pass after every ``reference(for:below:)``. The instruction takes its stacked inputs, the values
    /// on top of the stack, so its value goes where the first of them was.
    @usableFromInline
    func output<T>(of node: Node<T>) -> Int {
        let index = instructions.count
        if let frame = frames.last {
            for input in frame.inputs.reversed() {
                guard stack.last?.instruction == input else {
                    isInconsistent = true
                    break
                }
                stack.removeLast()
                consumers[input] = index
            }
        }
        return push(T.self, key: node.key)
    }

    /// Reserves the slot of the next instruction's value, of type `V`, on top of the stack.
    private func push<V>(_ type: V.Type, key: BindingKey) -> Int {
        let alignment = max(MemoryLayout<V>.alignment, 1)
        let top = stack.last?.end ?? 0
        let offset = (top + alignment - 1) / alignment * alignment
        let end = offset + MemoryLayout<V>.size
        stack.append(StackedValue(instruction: instructions.count, offset: offset, end: end))
        stackSize = max(stackSize, end)
        stackAlignment = max(stackAlignment, alignment)
        consumers.append(0)
        keys.append(key)
        outputs.append(
            ProgramOutput(offset: offset) { address in
                address.assumingMemoryBound(to: V.self).deinitialize(count: 1)
            }
        )
        return offset
    }
}

/// Why a program could not be made (a recipe without an instruction, a dependency that is not linked):
/// never reported, since the node then keeps running its plan.
struct ProgramUnavailable: Error {}
