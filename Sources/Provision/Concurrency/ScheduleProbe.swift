#if PROVISION_PERTURB
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
    #endif
    import Synchronization
#endif

/// The steps of the concurrency protocol where a schedule perturbation may be injected: the places
/// where another thread arriving in between changes the outcome.
///
/// Compiled out by default: ``ScheduleProbe/step(_:)`` is an empty inlined function, so a release
/// build carries no trace of it. Built with `-Xswiftc -DPROVISION_PERTURB` (as `Scripts/stress.sh
/// --perturb` does), each step yields the processor or sleeps a random few microseconds, so that the
/// stress run explores interleavings that an unperturbed run almost never reaches.
enum ScheduleProbe {
    enum Point: Sendable {
        /// A caller installed a singleton or scoped gate and is about to run the factory.
        case gateInstalled
        /// A caller found a gate and registered as its waiter, about to wait.
        case waiterRegistered
        /// A waiter recorded its wait in the waits-for graph.
        case waitRecorded
        /// A waiter woke up (or timed out) and is about to remove its wait record.
        case waitEnding
        /// A builder is about to publish its instance.
        case publishing
        /// A builder recorded its gate's outcome.
        case gateFinished
        /// A builder removed its gate and is about to wake the waiters.
        case waking
        /// A build registered or ended in the injector's in-flight count.
        case buildCounted
        /// The lifecycle changed phase, or a service is about to run a start or stop hook.
        case phaseChanged
        /// A scope or the registry is closing.
        case closing
        /// A table of the registry is being published.
        case tablePublished
    }

    #if PROVISION_PERTURB
        /// Whether perturbation is on: set by `PROVISION_PERTURB=1` in the environment, read once.
        private static let enabled: Bool = {
            guard let value = getenv("PROVISION_PERTURB") else { return false }
            return String(cString: value) != "0"
        }()

        private static let seed = Atomic<UInt64>(0x9E37_79B9_7F4A_7C15)

        /// Yields, sleeps 1-20 µs, or does nothing, at random.
        static func step(_ point: Point) {
            guard enabled else { return }
            // A shared splitmix64 step: cheap, and racy updates only make it more random.
            var z = seed.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            switch z % 8 {
            case 0, 1, 2: sched_yield()
            case 3: usleep(useconds_t(1 + (z >> 8) % 20))
            default: break
            }
        }
    #else
        /// Does nothing: perturbation is compiled out (see the type's documentation).
        @inline(__always) static func step(_ point: Point) {}
    #endif
}
