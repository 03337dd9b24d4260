#include "live_http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct handoff_live_http {
    CURL *curl;
};

// The store's answer is not read: its status says all live tracking needs.
static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data;
    (void)context;
    return size * count;
}

handoff_live_http *handoff_live_http_new(void) {
    static int initialised = 0;
    if (!initialised) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        initialised = 1;
    }
    handoff_live_http *http = calloc(1, sizeof *http);
    if (!http) return NULL;
    http->curl = curl_easy_init();
    if (!http->curl) {
        free(http);
        return NULL;
    }
    return http;
}

int handoff_live_http_post(handoff_live_http *http, const char *url, const char *authorization,
                           const char *user_agent, const char *body, size_t length, long timeout_ms,
                           long *status, char *error, size_t error_size) {
    CURL *curl = http->curl;
    char message[CURL_ERROR_SIZE] = {0};
    struct curl_slist *headers = NULL;
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Accept: application/json");
    headers = curl_slist_append(headers, authorization);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)length);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, message);
    CURLcode code = curl_easy_perform(curl);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(headers);
    *status = 0;
    if (code == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    } else if (error && error_size > 0) {
        snprintf(error, error_size, "%s", message[0] ? message : curl_easy_strerror(code));
    }
    return (int)code;
}

void handoff_live_http_free(handoff_live_http *http) {
    if (!http) return;
    curl_easy_cleanup(http->curl);
    free(http);
}
