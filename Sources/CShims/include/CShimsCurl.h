#ifndef PREFETCHD_SHIMS_CURL_H
#define PREFETCHD_SHIMS_CURL_H

#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
   One typed wrapper per argument kind, as swift-corelibs-foundation does it. */

CURLcode pf_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode pf_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value);
CURLcode pf_easy_setopt_ptr(CURL *easy, CURLoption option, const void *value);
CURLcode pf_easy_setopt_write(CURL *easy, CURLoption option, curl_write_callback value);
CURLcode pf_easy_setopt_prereq(CURL *easy, curl_prereq_callback value);
CURLcode pf_easy_setopt_xferinfo(CURL *easy, curl_xferinfo_callback value);

CURLcode pf_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode pf_easy_getinfo_off(CURL *easy, CURLINFO info, curl_off_t *value);
CURLcode pf_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value);

CURLMcode pf_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

CURLSHcode pf_share_setopt_long(CURLSH *share, CURLSHoption option, long value);
/* Lock and unlock callbacks (a mutex per kind of data) so that several threads' transfers may use
   the share at once. */
CURLSHcode pf_share_use_locks(CURLSH *share);

/* curl_version_info for the version of the headers built with (CURLVERSION_NOW, a macro Swift
   does not import). */
curl_version_info_data *pf_curl_version_info(void);

#endif
