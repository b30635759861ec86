// The floor a Swift HTTP client on libcurl is measured against: libcurl driven from C with
// nothing above it. One call runs a whole benchmark's requests, so no Swift runs per request.
// libcurl is loaded at run time (as Courier loads it), so building needs no curl headers.
#ifndef CURL_FLOOR_H
#define CURL_FLOOR_H

#include <stddef.h>

/// Loads libcurl.so.4; 0, or -1 when it cannot.
int curl_floor_load(void);

/// GETs `prefix` followed by each number from `first` to `first + count - 1` (`…page.json?n=`),
/// `in_flight` at a time: one easy handle reused when `in_flight` is 1, otherwise a multi handle
/// that keeps `in_flight` transfers going. Each body is collected into a buffer of its own
/// handle. Returns the total bytes received, or -1 on the first failure (a libcurl error or a
/// status other than 200).
long long curl_floor_get(const char *prefix, int first, int count, int in_flight);

#endif
