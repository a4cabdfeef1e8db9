#include "CShimsCurl.h"

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

curl_version_info_data *pf_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}
