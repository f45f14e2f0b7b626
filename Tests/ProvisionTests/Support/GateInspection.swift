import Foundation

@testable import Provision

extension Injector {
    /// The callers registered on the gate of `type`'s singleton right now: threads waiting on its
    /// semaphore and tasks suspended on it; `nil` when no build of it is in progress. For tests that
    /// must know a caller is really waiting (a barrier on the injector's state, not a sleep).
    func gateWaiters<T>(of type: T.Type, named name: String? = nil) -> (threads: Int, tasks: Int)? {
        let key = BindingKey(type, named: name)
        guard let cell = lookup(key, as: type)?.cell else { return nil }
        return registry.stripe(for: key).withState { state in
            state.gates[ObjectIdentifier(cell)].map { ($0.waiters, $0.suspended.count) }
        }
    }
}

/// How many rounds a randomized test runs: `count`, or a tenth of it under a sanitizer (which slows
/// every thread switch tenfold; `Scripts/test.sh` sets the sanitizer's options in the environment),
/// times `PROVISION_STRESS_SCALE` when it is set (a long soak: `PROVISION_STRESS_SCALE=10 swift test`).
func stressRounds(_ count: Int) -> Int {
    let environment = ProcessInfo.processInfo.environment
    let sanitized = environment["TSAN_OPTIONS"] != nil || environment["ASAN_OPTIONS"] != nil
    let scale = environment["PROVISION_STRESS_SCALE"].flatMap { Int($0) } ?? 1
    return max(1, (sanitized ? count / 10 : count) * max(1, scale))
}
