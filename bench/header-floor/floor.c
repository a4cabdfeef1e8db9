/*
 * The header run's floor: the least a tool can spend to do what `prefetchd run` with
 * `validate: header` must do for every body, and nothing else, on one thread as curl does.
 *
 * libcurl's multi interface with N transfers in flight (the curl tool's 100 KiB receive buffer),
 * and for every body:
 *   - an unnamed file (O_TMPFILE) in its folder, written from libcurl's buffer as the bytes come;
 *   - XXH3-128 over the bytes as they come (the cache's checksum);
 *   - on success, the file linked under its final name (linkat through /proc/self/fd), then closed;
 *   - one row in an SQLite table shaped as the cache index's `entries` (its two clock indexes, WAL,
 *     synchronous=NORMAL), 256 rows a transaction.
 * No header check, no scheduling, no events, no retries: what is left between this and prefetchd
 * is what prefetchd adds beyond the work itself.
 *
 * An https:// list is fetched over HTTP/2, each thread's transfers multiplexed on one connection,
 * the certificate not checked (the benchmark's is self-signed).
 *
 * With THREADS above 1, each thread runs its own multi handle over every THREADS-th URL, PARALLEL
 * transfers in flight in all (split as evenly as they go), and the rows go into the one table
 * through its one connection under a mutex: the same work spread over the cores, to show what a
 * tool doing it could reach on them.
 *
 * Usage: floor URL_LIST OUT_DIR [PARALLEL [THREADS]]
 * Files go to OUT_DIR/<two hex digits of the URL's hash>/<the URL's last segment>; the table to
 * OUT_DIR/index.sqlite. Exits 1 when any transfer failed.
 */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

struct transfer {
    CURL *easy;
    char *url;
    int fd;
    long long bytes;
    XXH3_state_t *hash;
    int failed;
};

struct worker {
    char **urls;
    size_t count, stride, first;
    int parallel;
    size_t failures;
};

static sqlite3 *db;
static sqlite3_stmt *insert;
static int rows_in_batch;
static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_dir;

static void die(const char *what, const char *detail) {
    fprintf(stderr, "floor: %s: %s\n", what, detail);
    exit(2);
}

static void sql(const char *text) {
    char *error = NULL;
    if (sqlite3_exec(db, text, NULL, NULL, &error) != SQLITE_OK) die(text, error);
}

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    struct transfer *t = context;
    size_t length = size * count;
    XXH3_128bits_update(t->hash, data, length);
    size_t written = 0;
    while (written < length) {
        ssize_t result = pwrite(t->fd, data + written, length - written, t->bytes + (off_t)written);
        if (result < 0) {
            if (errno == EINTR) continue;
            t->failed = 1;
            return 0;
        }
        written += (size_t)result;
    }
    t->bytes += (long long)length;
    return length;
}

static void folder_for(const char *url, char *folder, size_t room) {
    snprintf(folder, room, "%s/%02x", out_dir, (unsigned)(XXH3_64bits(url, strlen(url)) & 0xff));
}

static void start(CURLM *multi, struct transfer *t, char *url) {
    char folder[4096];
    folder_for(url, folder, sizeof folder);
    t->fd = open(folder, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (t->fd < 0) die("open O_TMPFILE", strerror(errno));
    t->url = url;
    t->bytes = 0;
    t->failed = 0;
    XXH3_128bits_reset(t->hash);
    curl_easy_setopt(t->easy, CURLOPT_URL, url);
    /* An HTTPS transfer waits to multiplex on the thread's one HTTP/2 connection, as curl's and
       prefetchd's do. */
    curl_easy_setopt(t->easy, CURLOPT_PIPEWAIT, strncmp(url, "https:", 6) == 0 ? 1L : 0L);
    curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t);
    curl_multi_add_handle(multi, t->easy);
}

/* Links the body under its final name, closes it and adds its row; false when it failed. */
static int finish(struct transfer *t, CURLcode code) {
    long status = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    int ok = code == CURLE_OK && status == 200 && !t->failed;
    if (ok) {
        char folder[4096], source[64], target[4200];
        folder_for(t->url, folder, sizeof folder);
        const char *name = strrchr(t->url, '/');
        snprintf(source, sizeof source, "/proc/self/fd/%d", t->fd);
        snprintf(target, sizeof target, "%s/%s", folder, name ? name + 1 : t->url);
        if (linkat(AT_FDCWD, source, AT_FDCWD, target, AT_SYMLINK_FOLLOW) != 0) die("linkat", strerror(errno));
    }
    close(t->fd);
    if (!ok) return 0;

    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(t->hash));
    char checksum[5 + 33];
    memcpy(checksum, "xxh3:", 5);
    for (int i = 0; i < 16; i++) sprintf(checksum + 5 + 2 * i, "%02x", canonical.digest[i]);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double seconds = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    pthread_mutex_lock(&index_lock);
    if (rows_in_batch == 0) sql("BEGIN");
    sqlite3_bind_text(insert, 1, t->url, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 2, t->url, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 3, strrchr(t->url, '/') + 1, -1, SQLITE_STATIC);
    sqlite3_bind_int64(insert, 4, t->bytes);
    sqlite3_bind_text(insert, 5, checksum, -1, SQLITE_STATIC);
    sqlite3_bind_double(insert, 6, seconds);
    if (sqlite3_step(insert) != SQLITE_DONE) die("insert", sqlite3_errmsg(db));
    sqlite3_reset(insert);
    if (++rows_in_batch == 256) {
        sql("COMMIT");
        rows_in_batch = 0;
    }
    pthread_mutex_unlock(&index_lock);
    return 1;
}

/* One thread's share: every stride-th URL from first, parallel transfers in flight. */
static void *fetch_share(void *context) {
    struct worker *w = context;
    CURLM *multi = curl_multi_init();
    struct transfer *transfers = calloc((size_t)w->parallel, sizeof *transfers);
    struct transfer **idle = calloc((size_t)w->parallel, sizeof *idle);
    int idle_count = 0;
    for (int i = 0; i < w->parallel; i++) {
        struct transfer *t = &transfers[i];
        t->easy = curl_easy_init();
        t->hash = XXH3_createState();
        curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t);
        curl_easy_setopt(t->easy, CURLOPT_BUFFERSIZE, 102400L);
        curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
        /* Over HTTPS the benchmark's certificate is self-signed: unchecked, as by curl -k and
           prefetchd's insecure_tls. */
        curl_easy_setopt(t->easy, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(t->easy, CURLOPT_SSL_VERIFYHOST, 0L);
        idle[idle_count++] = t;
    }

    size_t next = w->first;
    int running = 0;
    do {
        while (idle_count > 0 && next < w->count) {
            start(multi, idle[--idle_count], w->urls[next]);
            next += w->stride;
        }
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            struct transfer *t;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&t);
            CURLcode code = message->data.result;
            curl_multi_remove_handle(multi, t->easy);
            if (!finish(t, code)) w->failures++;
            idle[idle_count++] = t;
        }
        if (idle_count > 0 && next < w->count) continue;
        if (running) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    } while (running || next < w->count);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: floor URL_LIST OUT_DIR [PARALLEL [THREADS]]\n");
        return 2;
    }
    out_dir = argv[2];
    int parallel = argc > 3 ? atoi(argv[3]) : 16;
    int threads = argc > 4 ? atoi(argv[4]) : 1;
    if (threads < 1 || threads > 64) die("THREADS", "must be 1 to 64");
    if (parallel < threads) die("PARALLEL", "must be at least 1 a thread");

    FILE *list = fopen(argv[1], "r");
    if (!list) die(argv[1], strerror(errno));
    size_t count = 0, room = 1024;
    char **urls = malloc(room * sizeof *urls);
    char line[8192];
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        if (count == room) urls = realloc(urls, (room *= 2) * sizeof *urls);
        urls[count++] = strdup(line);
    }
    fclose(list);

    for (int i = 0; i < 256; i++) {
        char folder[4096];
        snprintf(folder, sizeof folder, "%s/%02x", out_dir, i);
        if (mkdir(folder, 0755) != 0 && errno != EEXIST) die(folder, strerror(errno));
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/index.sqlite", out_dir);
    if (sqlite3_open(path, &db) != SQLITE_OK) die(path, sqlite3_errmsg(db));
    sql("PRAGMA journal_mode=WAL");
    sql("PRAGMA synchronous=NORMAL");
    sql("CREATE TABLE IF NOT EXISTS entries (id INTEGER PRIMARY KEY, url TEXT, cache_key TEXT, set_name TEXT, "
        "relative_path TEXT NOT NULL, byte_size INTEGER NOT NULL, format TEXT, width INTEGER, height INTEGER, "
        "etag TEXT, last_modified TEXT, checksum TEXT, fetched_at REAL NOT NULL, modified_at REAL NOT NULL, "
        "accessed_at REAL NOT NULL, validated_at REAL, frames INTEGER, variant_of TEXT, variant TEXT)");
    sql("CREATE INDEX IF NOT EXISTS entries_accessed_at ON entries(accessed_at)");
    sql("CREATE INDEX IF NOT EXISTS entries_fetched_at ON entries(fetched_at)");
    if (sqlite3_prepare_v2(db,
            "INSERT INTO entries(url, cache_key, set_name, relative_path, byte_size, format, checksum, "
            "fetched_at, modified_at, accessed_at) VALUES(?1, ?2, 'corpus', ?3, ?4, 'jpeg', ?5, ?6, ?6, ?6)",
            -1, &insert, NULL) != SQLITE_OK)
        die("prepare", sqlite3_errmsg(db));

    curl_global_init(CURL_GLOBAL_ALL);
    struct worker workers[64];
    pthread_t ids[64];
    for (int i = 0; i < threads; i++) {
        workers[i] = (struct worker){.urls = urls, .count = count, .stride = (size_t)threads, .first = (size_t)i,
            .parallel = parallel / threads + (i < parallel % threads)};
        if (i > 0 && pthread_create(&ids[i], NULL, fetch_share, &workers[i]) != 0) die("pthread_create", strerror(errno));
    }
    fetch_share(&workers[0]);
    size_t failures = workers[0].failures;
    for (int i = 1; i < threads; i++) {
        pthread_join(ids[i], NULL);
        failures += workers[i].failures;
    }

    if (rows_in_batch > 0) sql("COMMIT");
    sqlite3_finalize(insert);
    sqlite3_close(db);
    fprintf(stderr, "floor: %zu URLs, %zu failed\n", count, failures);
    return failures ? 1 : 0;
}
