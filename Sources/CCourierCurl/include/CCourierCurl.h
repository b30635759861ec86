// Courier's own declarations of the few libcurl functions CurlTransport calls, loaded at run
// time from the system's libcurl (the libcurl.so.4 that FoundationNetworking links), so that
// building Courier needs no curl headers and no link flags. Every call goes through these
// C functions, which call libcurl's variadic functions (curl_easy_setopt, curl_easy_getinfo,
// curl_multi_setopt) with the argument type each option expects, as C must.
//
// The values of options, codes and flags are libcurl's, from its public headers
// (include/curl/curl.h and multi.h), which keep them stable across versions; Swift defines
// the ones it uses (in Curl.swift, the `Curl` namespace).
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

/// Whether libcurl resolves host names without blocking (`CURL_VERSION_ASYNCHDNS`: a threaded
/// resolver or c-ares), so that starting a transfer never waits for DNS.
int courier_curl_resolves_asynchronously(void);

void *courier_curl_easy_init(void);
void courier_curl_easy_cleanup(void *easy);
/// `curl_easy_reset`: every option back to its default, the handle's memory kept for reuse.
void courier_curl_easy_reset(void *easy);
int courier_curl_easy_setopt_long(void *easy, int option, long value);
int courier_curl_easy_setopt_pointer(void *easy, int option, const void *value);
int courier_curl_easy_setopt_offset(void *easy, int option, int64_t value);
/// A blob option (`struct curl_blob`, libcurl 7.71): libcurl copies the `length` bytes at `data`.
int courier_curl_easy_setopt_blob(void *easy, int option, const void *data, size_t length);
int courier_curl_easy_setopt_data_callback(void *easy, int option, courier_curl_data_callback callback);
int courier_curl_easy_setopt_progress_callback(
  void *easy, int option, courier_curl_progress_callback callback);
int courier_curl_easy_getinfo_long(void *easy, int info, long *value);
int courier_curl_easy_getinfo_offset(void *easy, int info, int64_t *value);
int courier_curl_easy_pause(void *easy, int bitmask);
const char *courier_curl_easy_strerror(int code);
/// `curl_easy_perform`: runs the transfer on the calling thread (with `CURLOPT_CONNECT_ONLY`,
/// only connects, through any proxy and TLS).
int courier_curl_easy_perform(void *easy);
/// `curl_easy_send` and `curl_easy_recv` on a connect-only handle's connection: return
/// `CURLE_AGAIN` (81) when the socket is not ready, and write how many bytes moved.
int courier_curl_easy_send(void *easy, const void *buffer, size_t length, size_t *sent);
int courier_curl_easy_recv(void *easy, void *buffer, size_t length, size_t *received);
/// `CURLINFO_ACTIVESOCKET`: the connected socket of a connect-only handle, or -1.
int courier_curl_easy_active_socket(void *easy, int *socket);
/// `CURLOPT_CLOSESOCKETFUNCTION`: `callback` closes the handle's sockets (and so hears of it
/// when libcurl lets one go), given `user` (`CURLOPT_CLOSESOCKETDATA`).
typedef int (*courier_curl_close_socket_callback)(void *user, int socket);
int courier_curl_easy_setopt_close_socket(
  void *easy, courier_curl_close_socket_callback callback, void *user);
/// `CURLOPT_SOCKOPTFUNCTION`: `callback` hears of each socket libcurl makes for the handle,
/// given `user` (`CURLOPT_SOCKOPTDATA`), and returns 0 (`CURL_SOCKOPT_OK`).
typedef int (*courier_curl_sockopt_callback)(void *user, int socket, int purpose);
int courier_curl_easy_setopt_sockopt(
  void *easy, courier_curl_sockopt_callback callback, void *user);

/// `CURLOPT_PREREQFUNCTION` (libcurl 7.80): `callback` is called, given `user`
/// (`CURLOPT_PREREQDATA`), each time the request is about to go out on a connection (a second
/// time when libcurl sends it again on a fresh connection, after a reused one closed with no
/// answer), and returns 0 to send it or 1 (`CURL_PREREQFUNC_ABORT`) to end the transfer with
/// `CURLE_ABORTED_BY_CALLBACK`. An older libcurl refuses it with `CURLE_UNKNOWN_OPTION`.
typedef int (*courier_curl_prereq_callback)(
  void *user, char *primaryIP, char *localIP, int primaryPort, int localPort);
int courier_curl_easy_setopt_prereq(
  void *easy, courier_curl_prereq_callback callback, void *user);

/// `CURLOPT_SEEKFUNCTION`: `callback` is asked, given `user` (`CURLOPT_SEEKDATA`), to move the
/// body libcurl reads to `offset` (`origin` is `SEEK_SET`) — to 0 when libcurl sends the
/// request again on a fresh connection — and returns 0 (`CURL_SEEKFUNC_OK`) or 2
/// (`CURL_SEEKFUNC_CANTSEEK`), which ends such a re-sending with `CURLE_SEND_FAIL_REWIND`.
typedef int (*courier_curl_seek_callback)(void *user, int64_t offset, int origin);
int courier_curl_easy_setopt_seek(void *easy, courier_curl_seek_callback callback, void *user);

void *courier_curl_slist_append(void *list, const char *string);
void courier_curl_slist_free_all(void *list);

void *courier_curl_multi_init(void);
int courier_curl_multi_cleanup(void *multi);
int courier_curl_multi_setopt_long(void *multi, int option, long value);
int courier_curl_multi_add_handle(void *multi, void *easy);
int courier_curl_multi_remove_handle(void *multi, void *easy);
/// `curl_multi_socket_action`: libcurl acts on `socket` (`CURL_SOCKET_TIMEOUT`, -1: on its timer).
int courier_curl_multi_socket_action(void *multi, int socket, int flags, int *running);
int courier_curl_multi_setopt_pointer(void *multi, int option, const void *value);

/// A share (`curl_share_init`) of a connection cache (`CURL_LOCK_DATA_CONNECT`), without lock
/// functions: for handles used on one thread at a time. NULL where it cannot be made.
void *courier_curl_connection_share(void);
/// `curl_share_cleanup`: 0, or `CURLSHE_IN_USE` while a handle still uses it.
int courier_curl_share_cleanup(void *share);
/// `CURLOPT_SHARE`: the handle's connections go in `share`'s cache (NULL: the multi handle's).
int courier_curl_easy_setopt_share(void *easy, void *share);

/// An event loop for two multi handles in libcurl's socket mode (CCourierCurlLoop.c; Linux):
/// the sockets libcurl asks to watch are kept in an epoll set, and each handle's timer as a due
/// time, so that one thread can sleep in `courier_curl_loop_wait` without touching the multi
/// handles while others call libcurl on them (under the caller's lock). Sockets of the
/// caller's own can be watched in the same set (`courier_curl_loop_watch`). NULL where it
/// cannot be made.
typedef struct courier_curl_loop courier_curl_loop;
courier_curl_loop *courier_curl_loop_create(void *multi, void *second);
void courier_curl_loop_destroy(courier_curl_loop *loop);
/// Milliseconds until the sooner of libcurl's timers is due (0: now), or -1 when none is set.
long courier_curl_loop_timer(courier_curl_loop *loop);
/// Whether the timer of multi handle `owner` (0: `multi`, 1: `second`) is due; if so it is
/// spent (libcurl's timers do not repeat: after `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)`
/// libcurl sets the next one, if any).
int courier_curl_loop_timer_fired(courier_curl_loop *loop, int owner);
/// Watches `socket`, a socket of the caller's own (not libcurl's), for reading and/or
/// writing; asked for neither, leaves it out of the set. 0, or -1.
int courier_curl_loop_watch(courier_curl_loop *loop, int socket, int reading, int writing);
/// Sleeps until a watched socket is ready, `courier_curl_loop_wake` is called, or `timeout_ms`
/// pass; writes the ready sockets, their `CURL_CSELECT_*` flags and whose they are (0: `multi`'s,
/// 1: `second`'s, 2: the caller's own) — at most `capacity` — and returns how many, or -1.
int courier_curl_loop_wait(
  courier_curl_loop *loop, int timeout_ms, int *sockets, int *flags, int *owners, int capacity);
/// Ends a `courier_curl_loop_wait` under way, or the next one, at once. Any thread.
void courier_curl_loop_wake(courier_curl_loop *loop);

/// The next finished transfer: returns 1 with its handle and result code, or 0 when none is left.
int courier_curl_multi_next_done(void *multi, void **easy, int *result);

/// Fills `buffer` with `length` bytes from the system's randomness (getrandom on Linux,
/// arc4random_buf on Apple platforms): 0, or -1 when it could not.
int courier_random_bytes(void *buffer, size_t length);

/// libpsl, loaded at first use: 1 when `domain` (lowercase, ASCII) is a public suffix, 0 when
/// not, -1 when the system has no libpsl (Apple platforms have none).
int courier_psl_is_public_suffix(const char *domain);

#endif
