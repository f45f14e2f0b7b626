/// Disposes recorded instances, newest first, collecting every failure.
///
/// It takes a ``DisposalRecord``'s entries as they were recorded (oldest first) and walks them backwards
/// by index: no reversed copy of the list, and no copy of an entry's disposal beyond the one the call
/// needs (each copy of an existential is a call through its type's value witnesses).
enum Disposer {
    /// Disposes the instances of `entries` (in recording order) newest first, awaiting async ones (each
    /// bounded by `timeout`); entries with nothing to dispose are skipped.
    static func dispose(_ entries: [DisposalRecord.Entry], timeout: Duration) async -> [ProvisionError] {
        var failures: [ProvisionError] = []
        for index in entries.indices.reversed() {
            let key = entries[index].key
            switch entries[index].disposal {
            case .sync(let disposable):
                if let failure = disposeSynchronously(disposable, key: key) { failures.append(failure) }
            case .async(let disposable):
                if let failure = await HookRunner.run(
                    { try await disposable.dispose() }, for: key, "disposing", timeout: timeout)
                {
                    failures.append(failure)
                }
            case nil:
                continue
            }
        }
        return failures
    }

    /// Disposes the ``Disposable`` instances of `entries` (in recording order) newest first; an
    /// ``AsyncDisposable`` one is reported, not disposed.
    static func disposeSynchronously(_ entries: [DisposalRecord.Entry]) -> [ProvisionError] {
        var failures: [ProvisionError] = []
        for index in entries.indices.reversed() {
            switch entries[index].disposal {
            case .sync(let disposable):
                if let failure = disposeSynchronously(disposable, key: entries[index].key) {
                    failures.append(failure)
                }
            case .async:
                failures.append(ProvisionError.asyncDisposalInSynchronousClose(entries[index].key))
            case nil:
                continue
            }
        }
        return failures
    }

    /// Disposes an instance that no owner will dispose: one built after its owner stopped recording (a
    /// shut-down injector, a closed scope), or one whose build failed after it was made. A ``Disposable``
    /// one is disposed now (what it threw is returned); an ``AsyncDisposable`` one in a task of its own,
    /// since a synchronous caller can't await it, bounded by `timeout` like every async disposal.
    static func disposeOrphan(_ disposal: InstanceRecorder.Disposal?, key: BindingKey, timeout: Duration)
        -> ProvisionError?
    {
        switch disposal {
        case .sync(let disposable):
            return disposeSynchronously(disposable, key: key)
        case .async(let disposable):
            let entry = DisposalRecord.Entry(key: key, disposal: .async(disposable))
            Task { _ = await dispose([entry], timeout: timeout) }
            return nil
        case nil:
            return nil
        }
    }

    /// Disposes the instances of `entries` (in recording order) that no owner will dispose, from a
    /// synchronous caller (an injector whose creation failed): the ``Disposable`` ones now, newest first,
    /// and the ``AsyncDisposable`` ones in one task of their own, newest first, each bounded by
    /// `timeout`. Failures are dropped.
    static func disposeAbandoned(_ entries: [DisposalRecord.Entry], timeout: Duration) {
        for index in entries.indices.reversed() {
            if case .sync(let disposable) = entries[index].disposal {
                _ = disposeSynchronously(disposable, key: entries[index].key)
            }
        }
        // In recording order: `dispose` walks them newest first.
        let awaited = entries.filter {
            if case .async = $0.disposal { return true }
            return false
        }
        guard !awaited.isEmpty else { return }
        Task { _ = await dispose(awaited, timeout: timeout) }
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
