internal import CShims

/// Process-wide settings the executable applies once at start.
public enum ProcessTuning {
    /// Two malloc arenas instead of glibc's one per thread (up to 8 x cores): the network thread
    /// and the validation workers allocate and free small buffers for the whole run, and per-thread
    /// arenas only hold on to that memory (measured: peak RSS of a 100,000-URL run).
    public static func limitMallocArenas() {
        _ = pf_limit_malloc_arenas(2)
    }
}
