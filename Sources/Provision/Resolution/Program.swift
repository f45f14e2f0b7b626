/// A node's static subgraph as a list of instructions that build it bottom-up, without recursing: the
/// form a top-level request runs for a constructor binding whose dependencies are constructors too.
///
/// A plan builds a value by calling its dependencies' plans, so resolving a chain of constructor bindings
/// nests one call per binding, each with its own stack frame: a chain of 1,000 services touched about
/// 150 KB of stack per request, and its plans' objects besides, more than the first-level cache holds,
/// where the same objects built by nested initializer calls need no stack at all. A program builds the
/// same values in the same order from a loop: each instruction builds one value from values that earlier
/// instructions left on the program's *value stack* (a buffer on the thread's stack, sized when the
/// program is made), and leaves its own value there for the instruction that needs it. The instructions
/// are read in order, from consecutive memory; the value stack stays a few slots deep.
///
/// A program is made once per node, on the node's first top-level request (see
/// ``Node/resolveUnpublished(_:)``), by ``ProgramBuilder``, from the linked node's subgraph: every
/// transient constructor binding below it that ``Node/isProgrammable`` becomes an instruction (up to
/// ``ProgramBuilder/instructionLimit``); everything else (singletons, plain leaves, closures, scoped
/// bindings) stays a dependency that the instruction needing it reaches through the dependency's node or
/// plan, as a plan would. Its instructions are the recipes' own steps (see `Recipe+Arity.swift`), so
/// they build, check and report exactly what the plans do.
///
/// Immutable once made, and `Sendable`: published once through the node, and run by any thread.
@usableFromInline
final class Program<T>: Sendable {
    /// The instructions, in the order they run (post-order over the subgraph), each retained by the
    /// program (released in `deinit`): a run borrows them without touching their reference counts.
    /// (Kept as closures side by side instead, each run of one copied its closure: a retain and a
    /// release per instruction, and its arguments passed through memory.)
    @usableFromInline let instructions: ContiguousArray<Unmanaged<Instruction>>
    /// For each instruction, the index of the instruction that takes its value (the last one's is
    /// `instructions.count`: its value is the result).
    @usableFromInline let consumers: [Int]
    /// For each instruction, where it leaves its value and how to destroy that value (for a request
    /// that fails before the value was taken).
    @usableFromInline let outputs: [ProgramOutput]
    /// For each instruction, the key reported on an error's path when an instruction it waits for fails:
    /// its node's key.
    @usableFromInline let keys: [BindingKey]
    /// The size and alignment of the value stack, in bytes.
    @usableFromInline let stackSize: Int
    @usableFromInline let stackAlignment: Int

    init(
        instructions: [Instruction],
        consumers: [Int],
        outputs: [ProgramOutput],
        keys: [BindingKey],
        stackSize: Int,
        stackAlignment: Int
    ) {
        self.instructions = ContiguousArray(instructions.map { Unmanaged.passRetained($0) })
        self.consumers = consumers
        self.outputs = outputs
        self.keys = keys
        self.stackSize = stackSize
        self.stackAlignment = stackAlignment
    }

    deinit {
        for instruction in instructions {
            instruction.release()
        }
    }

    /// Runs the program whose address is `address` (published by its node, which keeps it alive):
    /// the instructions in order, on a value stack of the thread's own, and returns the last one's
    /// value.
    @inlinable
    static func run(_ address: UnsafeRawPointer, _ context: ResolutionContext) throws(ProvisionError) -> T {
        let program = Unmanaged<Program<T>>.fromOpaque(address)
        let (size, alignment) = program._withUnsafeGuaranteedRef { ($0.stackSize, $0.stackAlignment) }
        return try withUnsafeTemporaryAllocation(byteCount: size, alignment: alignment) {
            (buffer: UnsafeMutableRawBufferPointer) throws(ProvisionError) -> T in
            let stack = buffer.baseAddress.unsafelyUnwrapped
            let failure: ProgramFailure? = program._withUnsafeGuaranteedRef { program in
                program.instructions.withUnsafeBufferPointer { instructions in
                    for index in instructions.indices {
                        let error: ProvisionError? = instructions[index]._withUnsafeGuaranteedRef { instruction in
                            do throws(ProvisionError) {
                                try instruction.run(context, stack)
                                return nil
                            } catch {
                                return error
                            }
                        }
                        if let error { return ProgramFailure(index: index, error: error) }
                    }
                    return nil
                }
            }
            if let failure {
                throw program._withUnsafeGuaranteedRef { $0.unwind(failure, stack) }
            }
            let result = program._withUnsafeGuaranteedRef { $0.outputs[$0.outputs.count - 1].offset }
            return (stack + result).assumingMemoryBound(to: T.self).move()
        }
    }

    /// After the instruction at `failure.index` failed: destroys the values on the stack that no
    /// instruction took yet, and returns the error with the keys of the instructions waiting for the
    /// failed one on its path (innermost first, as plans add them while an error propagates).
    @usableFromInline
    func unwind(_ failure: ProgramFailure, _ stack: UnsafeMutableRawPointer) -> ProvisionError {
        // The failed instruction took its stacked inputs before anything it could fail on (see
        // `ProgramBuilder`): a value is still on the stack when its consumer comes after the failure.
        for index in 0..<failure.index where consumers[index] > failure.index {
            outputs[index].destroy(stack + outputs[index].offset)
        }
        var error = failure.error
        var waiting = consumers[failure.index]
        while waiting < instructions.count {
            error = error.prepending(keys[waiting])
            waiting = consumers[waiting]
        }
        return error
    }
}

/// One instruction of a ``Program``: builds one value and leaves it on the value stack it is given.
/// An object, like ``Plan``, so that running it borrows its closure instead of copying it.
@usableFromInline
final class Instruction: Sendable {
    @usableFromInline typealias Run =
        @Sendable (ResolutionContext, UnsafeMutableRawPointer) throws(ProvisionError) -> Void

    @usableFromInline let run: Run

    @inlinable
    init(_ run: @escaping Run) {
        self.run = run
    }
}

/// Where an instruction of a ``Program`` leaves its value, and how to destroy it.
@usableFromInline
struct ProgramOutput: Sendable {
    @usableFromInline let offset: Int
    @usableFromInline let destroy: @Sendable (UnsafeMutableRawPointer) -> Void
}

/// The instruction of a ``Program`` that failed, and its error.
@usableFromInline
struct ProgramFailure {
    @usableFromInline let index: Int
    @usableFromInline let error: ProvisionError

    @inlinable
    init(index: Int, error: ProvisionError) {
        self.index = index
        self.error = error
    }
}
