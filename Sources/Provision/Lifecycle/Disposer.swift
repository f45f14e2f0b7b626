/// Disposes recorded instances, newest first, collecting every failure.
enum Disposer {
    /// Disposes every instance, awaiting async ones (each bounded by `timeout`).
    static func dispose(
        _ instances: some Sequence<(key: BindingKey, disposal: InstanceRecorder.Disposal)>,
        timeout: Duration
    ) async -> [ProvisionError] {
        var failures: [ProvisionError] = []
        for (key, disposal) in instances {
            switch disposal {
            case .sync(let disposable):
                if let failure = disposeSynchronously(disposable, key: key) { failures.append(failure) }
            case .async(let disposable):
                if let failure = await HookRunner.run(
                    { try await disposable.dispose() }, for: key, "disposing", timeout: timeout)
                {
                    failures.append(failure)
                }
            }
        }
        return failures
    }

    /// Disposes the ``Disposable`` instances; an ``AsyncDisposable`` one is reported, not disposed.
    static func disposeSynchronously(
        _ instances: some Sequence<(key: BindingKey, disposal: InstanceRecorder.Disposal)>
    ) -> [ProvisionError] {
        var failures: [ProvisionError] = []
        for (key, disposal) in instances {
            switch disposal {
            case .sync(let disposable):
                if let failure = disposeSynchronously(disposable, key: key) { failures.append(failure) }
            case .async:
                failures.append(ProvisionError.asyncDisposalInSynchronousClose(key))
            }
        }
        return failures
    }

    /// Disposes one ``Disposable`` instance; returns what its `dispose()` threw.
    static func disposeSynchronously(_ disposable: any Disposable, key: BindingKey) -> ProvisionError? {
        do {
            try disposable.dispose()
            return nil
        } catch {
            return ProvisionError.hookFailed(key, "disposing", cause: error)
        }
    }
}
