// One kept-alive HTTP connection for live tracking (issue 35): libcurl's easy interface, reused
// from one request to the next, so that a position every 15 s costs one request on an open
// connection and not a new URLSession task (libcurl has C varargs Swift cannot call).
#ifndef HANDOFF_LIVE_HTTP_H
#define HANDOFF_LIVE_HTTP_H

#include <stddef.h>

typedef struct handoff_live_http handoff_live_http;

/// A new handle (NULL when libcurl cannot make one).
handoff_live_http *handoff_live_http_new(void);

/// POSTs `body` (JSON) to `url` with `authorization` ("Bearer …"), within `timeout_ms`.
/// Returns 0 with the HTTP status in `*status`, or libcurl's error code with its words in `error`.
int handoff_live_http_post(handoff_live_http *http, const char *url, const char *authorization,
                           const char *user_agent, const char *body, size_t length, long timeout_ms,
                           long *status, char *error, size_t error_size);

void handoff_live_http_free(handoff_live_http *http);

#endif
