/// The texts of the tool as a whole, which `--help` and the man page both print.
enum ToolText {
    static let summary = "batch image prefetcher and disk-cache maintainer"

    static let exitStatus = """
        Exit status: 0 success; 1 finished but something failed; 2 usage or job-file error \
        (nothing fetched, nothing changed); 3 environment error (no cache in the folder, cache \
        unusable, disk full, lock held too long, standard output that cannot be written); \
        130/143/129 after SIGINT/SIGTERM/SIGHUP.
        """

    static let example = "prefetchd check jobs/catalog.yaml && prefetchd run jobs/catalog.yaml --report run.json"

    static let streams = "Logs go to standard error; machine output (JSON, paths) to standard output."
}
