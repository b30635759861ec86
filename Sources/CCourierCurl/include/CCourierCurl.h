// Courier's own declarations of the few libcurl functions CurlTransport calls, loaded at run
// time from the system's libcurl (the libcurl.so.4 that FoundationNetworking links), so that
// building Courier needs no curl headers and no link flags. Every call goes through these
// C functions, which call libcurl's variadic functions (curl_easy_setopt, curl_easy_getinfo,
// curl_multi_setopt) with the argument type each option expects, as C must.
//
// The values of options, codes and flags are libcurl's, from its public headers
// (include/curl/curl.h and multi.h), which keep them stable across versions; Swift defines
// the ones it uses (CurlConstants.swift).
#ifndef COURIER_CURL_H
#define COURIER_CURL_H

#include <stddef.h>
#include <stdint.h>

typedef size_t (*courier_curl_data_callback)(char *buffer, size_t size, size_t count, void *user);
typedef int (*courier_curl_progress_callback)(
  void *user, int64_t download_total, int64_t downloaded, int64_t upload_total, int64_t uploaded);

/// Loads libcurl (trying `libcurl.so.4`, then `libcurl.so`, `libcurl.4.dylib`) and looks up every
/// function Courier calls, then runs `curl_global_init`. Returns 0, or -1 with a message in
/// `error`. Call once.
int courier_curl_load(char *error, size_t error_size);

/// `curl_version()`: "libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 brotli/1.0.9 nghttp2/1.52.0 …".
const char *courier_curl_version(void);

void *courier_curl_easy_init(void);
void courier_curl_easy_cleanup(void *easy);
int courier_curl_easy_setopt_long(void *easy, int option, long value);
int courier_curl_easy_setopt_pointer(void *easy, int option, const void *value);
int courier_curl_easy_setopt_offset(void *easy, int option, int64_t value);
int courier_curl_easy_setopt_data_callback(void *easy, int option, courier_curl_data_callback callback);
int courier_curl_easy_setopt_progress_callback(
  void *easy, int option, courier_curl_progress_callback callback);
int courier_curl_easy_getinfo_long(void *easy, int info, long *value);
int courier_curl_easy_getinfo_offset(void *easy, int info, int64_t *value);
int courier_curl_easy_pause(void *easy, int bitmask);
const char *courier_curl_easy_strerror(int code);

void *courier_curl_slist_append(void *list, const char *string);
void courier_curl_slist_free_all(void *list);

void *courier_curl_multi_init(void);
int courier_curl_multi_cleanup(void *multi);
int courier_curl_multi_setopt_long(void *multi, int option, long value);
int courier_curl_multi_add_handle(void *multi, void *easy);
int courier_curl_multi_remove_handle(void *multi, void *easy);
int courier_curl_multi_perform(void *multi, int *running);
int courier_curl_multi_poll(void *multi, int timeout_ms, int *descriptors);
int courier_curl_multi_wakeup(void *multi);
/// The next finished transfer: returns 1 with its handle and result code, or 0 when none is left.
int courier_curl_multi_next_done(void *multi, void **easy, int *result);

#endif
