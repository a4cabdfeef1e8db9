internal import CShims
internal import Glibc

/// Process-wide settings the executable applies once at start, and the thread policies they rely on.
package enum ProcessTuning {
    /// At most eight malloc arenas, one per busy thread of a run, instead of glibc's up to 8 x cores:
    /// per-thread arenas only hold on to memory, while with fewer the threads queue for each other's
    /// arena locks (bench/RESULTS.md, "Design figures").
    package static func limitMallocArenas() {
        _ = pf_limit_malloc_arenas(8)
    }

    /// Keeps up to 64 MiB freed at the top of a heap instead of glibc's 128 KiB, and maps blocks of
    /// 4 MiB and more on their own instead of from 128 KiB: a warm `verify` or rerun frees and makes
    /// again the same few hundred KiB for every batch of keys, and with glibc's defaults each time gave
    /// them back to the system and took them again as new zeroed pages (about 4,000 page faults in a
    /// `verify` of 20,000 cached URLs, 5 % of its time; bench/RESULTS.md, "Warm path: start, heap,
    /// path walk"). glibc's own adjustment would raise both after the first large block freed, up to
    /// 32 MiB for mapping. True when glibc took both settings.
    @discardableResult
    package static func keepFreedHeap() -> Bool {
        pf_keep_freed_heap(64 << 20, 4 << 20) == 1
    }

    /// The soft limit on open files, raised to the hard limit when it is lower (Debian's default soft
    /// limit of 1,024 would not hold a run of high `concurrency`: each key in flight holds a file and a
    /// connection).
    package static func raiseOpenFileLimit() -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1024 }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        return Int(clamping: limits.rlim_cur)
    }

    /// A write past the file-size limit (`ulimit -f`) then fails with EFBIG, which the run reports as
    /// that body's failure or the cache's, and a write to a pipe whose reader went away (`| head`, a
    /// killed `tee`) with EPIPE, which the console drops; instead of SIGXFSZ or SIGPIPE killing the
    /// process with no report, no summary, and bodies on disk that the index never recorded.
    package static func ignoreWriteSignals() {
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Reads text as UTF-8 whatever the environment's locale (cron and CI often run with `C`): libcurl
    /// turns an international host name into its ASCII form through libidn2, which reads it in the
    /// locale's encoding, and failed every such URL under `C` as malformed.
    package static func useUTF8Characters() {
        setlocale(LC_CTYPE, "C.UTF-8")
    }

    /// The signals that stop a run or a clean.
    package static let stopSignals = [SIGINT, SIGTERM, SIGHUP]

    /// Holds the stop signals back (blocked) in the calling thread and every thread it starts. Called
    /// first in `main`, before any other thread exists: a stop signal that arrives before a command
    /// has armed its handler (`SignalRelay`, through the dispatch source that reads it) waits for it,
    /// instead of killing the process with no report, or being lost in between.
    package static func holdStopSignals() {
        var set = stopSignalSet
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Lets the stop signals through again in the calling thread, to their default actions: for the
    /// commands that do not handle them, which Ctrl-C then ends at once.
    package static func releaseStopSignals() {
        var set = stopSignalSet
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Holds SIGWINCH (a terminal resize) back in the calling thread and every thread it starts, as
    /// `holdStopSignals` does the stop signals, so that the dispatch source of `TerminalWidth` reads
    /// each one. Its default action is to ignore it, so holding it changes nothing for the rest.
    package static func holdWindowSignal() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGWINCH)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private static var stopSignalSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in stopSignals { sigaddset(&set, number) }
        return set
    }

    /// True when the process was started with `number` ignored: `nohup` ignores SIGHUP, and a shell
    /// ignores SIGINT for a job it starts in the background. A run keeps it ignored.
    package static func isIgnored(signal number: Int32) -> Bool {
        pf_signal_is_ignored(number) != 0
    }

    /// Makes the calling thread, and every thread it starts from now on, a batch thread
    /// (`SCHED_BATCH`): it still gets its fair share of the CPU, but waking it never preempts the
    /// thread that woke it. The network thread opts out (`preferCallingThread`), so a body stored or
    /// a URL scheduled never takes the CPU from the transfers. Not privileged; a refusal is ignored.
    package static func batchScheduling() {
        let batch = pf_sched_policy_batch()
        if batch >= 0 { setPolicy(batch) }
    }

    /// Back to normal scheduling for the calling thread (the network thread), so that it preempts
    /// the batch threads it wakes or that woke it.
    static func preferCallingThread() {
        setPolicy(SCHED_OTHER)
    }

    private static func setPolicy(_ policy: Int32) {
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, policy, &parameters)
    }
}
