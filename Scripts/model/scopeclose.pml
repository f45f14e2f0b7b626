/*
 * Closing a ServiceScope from several threads or tasks at once: which close disposes the instances,
 * and the closes that wait for it (ScopeClosing.enter / wait / finish, ServiceScope.close() and its
 * synchronous twin, finishClosing).
 *
 * NCLOSERS closes race. The first to enter becomes the disposer: it disposes (outside the lock) and
 * then finishes, waking every close registered meanwhile (outside the lock too). A later close either
 * returns at once (the disposal is over, or it is the disposer's own disposal closing its scope again,
 * which must not wait for itself) or registers and waits to be woken. The wait's timeout is left out:
 * a wake-up that never comes shows as a close blocked forever, an invalid end state.
 *
 * Checks: the instances are disposed exactly once; every close returns (no lost wake-up, no close
 * waiting for itself); a close that returns, other than the disposer's own nested one, has seen the
 * disposal finished.
 *
 * Switches: DEFECT_NO_WAIT (a later close returns at once: the bug ScopeClosing fixed),
 * DEFECT_LOST_WAKEUP (a close registers without checking that the disposal finished),
 * DEFECT_SELF_WAIT (the disposer's nested close is not recognised and waits for itself).
 */

#ifndef NCLOSERS
#define NCLOSERS 3
#endif

#define ROLE_DISPOSER 1
#define ROLE_DONE 2
#define ROLE_WAITER 3

bool locked = false;              /* the scope's state lock (Locked in ServiceScope) */
byte disposer = 0;                /* ScopeClosing.disposer: 0 before any close, else the closer's id */
bool isFinished = false;          /* ScopeClosing.isFinished */
bool registered[NCLOSERS + 1];    /* ScopeClosing.waiters */
bool woken[NCLOSERS + 1];         /* each waiter's wake-up (SuspendedWaiter / DispatchSemaphore) */
byte disposals = 0;               /* how many times the instances were disposed */
bool disposalDone = false;        /* the disposal has returned */
byte returned = 0;                /* closes that returned */

inline acquire() { atomic { !locked -> locked = true } }
inline release() { locked = false }

/* ScopeClosing.enter(caller), under the lock. */
inline enter(me, role) {
    acquire();
    if
    :: disposer == 0 -> disposer = me; role = ROLE_DISPOSER
    :: else ->
        if
#ifdef DEFECT_SELF_WAIT
        :: isFinished -> role = ROLE_DONE
        :: else -> role = ROLE_WAITER
#else
        :: isFinished || disposer == me -> role = ROLE_DONE
        :: else -> role = ROLE_WAITER
#endif
        fi
    fi;
#ifdef DEFECT_NO_WAIT
    if
    :: role == ROLE_WAITER -> role = ROLE_DONE
    :: else -> skip
    fi;
#endif
    release()
}

/* The waiter's branch of close(): ScopeClosing.wait under the lock, then the wait itself. */
inline waitForDisposer(me) {
    bool mustWait = false;
    acquire();
#ifdef DEFECT_LOST_WAKEUP
    registered[me] = true;
    mustWait = true;
#else
    if
    :: !isFinished -> registered[me] = true; mustWait = true
    :: else -> skip
    fi;
#endif
    release();
    if
    :: mustWait -> woken[me]
    :: else -> skip
    fi
}

proctype Closer(byte me) {
    byte role = 0;
    byte nested = 0;
    byte i;
    enter(me, role);
    if
    :: role == ROLE_DISPOSER ->
        /* closeOrDrain and Disposer.dispose, no lock held. A disposal may close its own scope again
           (a Disposable whose dispose() calls close()): that close must return at once. */
        if
        :: true ->
            enter(me, nested);
            assert(nested != ROLE_DISPOSER);
            if
            :: nested == ROLE_WAITER -> waitForDisposer(me)
            :: else -> skip
            fi
        :: true -> skip
        fi;
        disposals++;
        disposalDone = true;
        /* finishClosing: ScopeClosing.finish under the lock, the wake-ups after it. */
        acquire();
        isFinished = true;
        bool toWake[NCLOSERS + 1];
        i = 1;
        do
        :: i <= NCLOSERS -> toWake[i] = registered[i]; registered[i] = false; i++
        :: else -> break
        od;
        release();
        i = 1;
        do
        :: i <= NCLOSERS ->
            if
            :: toWake[i] -> woken[i] = true
            :: else -> skip
            fi;
            i++
        :: else -> break
        od
    :: role == ROLE_DONE -> skip
    :: role == ROLE_WAITER -> waitForDisposer(me)
    fi;
    /* A close that returns has seen everything disposed, exactly once. */
    assert(disposalDone && disposals == 1);
    returned++
}

init {
    byte id = 1;
    atomic {
        do
        :: id <= NCLOSERS -> run Closer(id); id++
        :: else -> break
        od
    };
    (_nr_pr == 1);
    assert(returned == NCLOSERS && disposals == 1)
}
