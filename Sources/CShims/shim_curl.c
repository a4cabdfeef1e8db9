#include "CShimsCurl.h"

#include <pthread.h>

CURLcode pf_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode pf_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode pf_easy_setopt_ptr(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode pf_easy_setopt_write(CURL *easy, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode pf_easy_setopt_prereq(CURL *easy, curl_prereq_callback value) {
    return curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, value);
}

CURLcode pf_easy_setopt_xferinfo(CURL *easy, curl_xferinfo_callback value) {
    return curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, value);
}

CURLcode pf_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode pf_easy_getinfo_off(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode pf_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLMcode pf_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLSHcode pf_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

/* One mutex per kind of shared data, for every share handle of the process. */
static pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
static pthread_once_t share_locks_once = PTHREAD_ONCE_INIT;

static void share_locks_init(void) {
    for (int kind = 0; kind < CURL_LOCK_DATA_LAST; kind++) {
        pthread_mutex_init(&share_locks[kind], NULL);
    }
}

static void share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *user) {
    (void)handle; (void)access; (void)user;
    pthread_mutex_lock(&share_locks[data]);
}

static void share_unlock(CURL *handle, curl_lock_data data, void *user) {
    (void)handle; (void)user;
    pthread_mutex_unlock(&share_locks[data]);
}

CURLSHcode pf_share_use_locks(CURLSH *share) {
    pthread_once(&share_locks_once, share_locks_init);
    CURLSHcode code = curl_share_setopt(share, CURLSHOPT_LOCKFUNC, share_lock);
    return code == CURLSHE_OK ? curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, share_unlock) : code;
}

curl_version_info_data *pf_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}
