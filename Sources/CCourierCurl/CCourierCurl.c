#include "CCourierCurl.h"

#include <dlfcn.h>
#include <stdio.h>
#if defined(__APPLE__)
#include <stdlib.h>
#else
#include <sys/random.h>
#endif

// libcurl's signatures, as its headers declare them (enums are int-sized; curl_off_t is a
// 64-bit integer on every platform Courier runs on).
typedef int (*global_init_fn)(long flags);
typedef char *(*version_fn)(void);
// The start of curl_version_info_data, which every version of the struct begins with.
struct courier_curl_version_info {
  int age;
  const char *version;
  unsigned int version_num;
  const char *host;
  int features;
};
typedef struct courier_curl_version_info *(*version_info_fn)(int);
typedef void *(*easy_init_fn)(void);
typedef void (*easy_cleanup_fn)(void *);
typedef void (*easy_reset_fn)(void *);
typedef int (*easy_setopt_fn)(void *, int, ...);
typedef int (*easy_getinfo_fn)(void *, int, ...);
typedef int (*easy_pause_fn)(void *, int);
typedef const char *(*easy_strerror_fn)(int);
typedef int (*easy_perform_fn)(void *);
typedef int (*easy_io_fn)(void *, void *, size_t, size_t *);
typedef void *(*slist_append_fn)(void *, const char *);
typedef void (*slist_free_all_fn)(void *);
typedef void *(*multi_init_fn)(void);
typedef int (*multi_cleanup_fn)(void *);
typedef int (*multi_setopt_fn)(void *, int, ...);
typedef int (*multi_handle_fn)(void *, void *);
typedef int (*multi_socket_action_fn)(void *, int, int, int *);
typedef void *(*share_init_fn)(void);
typedef int (*share_setopt_fn)(void *, int, ...);
typedef int (*share_cleanup_fn)(void *);

struct courier_curl_message {
  int msg;
  void *easy_handle;
  union {
    void *whatever;
    int result;
  } data;
};
typedef struct courier_curl_message *(*multi_info_read_fn)(void *, int *);

static struct {
  global_init_fn global_init;
  version_fn version;
  version_info_fn version_info;
  easy_init_fn easy_init;
  easy_cleanup_fn easy_cleanup;
  easy_reset_fn easy_reset;
  easy_setopt_fn easy_setopt;
  easy_getinfo_fn easy_getinfo;
  easy_pause_fn easy_pause;
  easy_strerror_fn easy_strerror;
  easy_perform_fn easy_perform;
  easy_io_fn easy_send;
  easy_io_fn easy_recv;
  slist_append_fn slist_append;
  slist_free_all_fn slist_free_all;
  multi_init_fn multi_init;
  multi_cleanup_fn multi_cleanup;
  multi_setopt_fn multi_setopt;
  multi_handle_fn multi_add_handle;
  multi_handle_fn multi_remove_handle;
  multi_socket_action_fn multi_socket_action;
  multi_info_read_fn multi_info_read;
  share_init_fn share_init;
  share_setopt_fn share_setopt;
  share_cleanup_fn share_cleanup;
} curl;

#define COURIER_CURL_GLOBAL_ALL 3L
#define COURIER_CURLMSG_DONE 1

static int find(void *library, const char *name, void **slot, char *error, size_t error_size) {
  *slot = dlsym(library, name);
  if (*slot == NULL) {
    snprintf(error, error_size, "libcurl has no %s (it is older than Courier needs)", name);
    return -1;
  }
  return 0;
}

int courier_curl_load(char *error, size_t error_size) {
  static const char *names[] = {"libcurl.so.4", "libcurl.so", "libcurl.4.dylib"};
  void *library = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {
    library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(error, error_size, "libcurl could not be loaded (%s)", reason ? reason : "not found");
    return -1;
  }
  if (find(library, "curl_global_init", (void **)&curl.global_init, error, error_size) ||
      find(library, "curl_version", (void **)&curl.version, error, error_size) ||
      find(library, "curl_version_info", (void **)&curl.version_info, error, error_size) ||
      find(library, "curl_easy_init", (void **)&curl.easy_init, error, error_size) ||
      find(library, "curl_easy_cleanup", (void **)&curl.easy_cleanup, error, error_size) ||
      find(library, "curl_easy_reset", (void **)&curl.easy_reset, error, error_size) ||
      find(library, "curl_easy_setopt", (void **)&curl.easy_setopt, error, error_size) ||
      find(library, "curl_easy_getinfo", (void **)&curl.easy_getinfo, error, error_size) ||
      find(library, "curl_easy_pause", (void **)&curl.easy_pause, error, error_size) ||
      find(library, "curl_easy_strerror", (void **)&curl.easy_strerror, error, error_size) ||
      find(library, "curl_easy_perform", (void **)&curl.easy_perform, error, error_size) ||
      find(library, "curl_easy_send", (void **)&curl.easy_send, error, error_size) ||
      find(library, "curl_easy_recv", (void **)&curl.easy_recv, error, error_size) ||
      find(library, "curl_slist_append", (void **)&curl.slist_append, error, error_size) ||
      find(library, "curl_slist_free_all", (void **)&curl.slist_free_all, error, error_size) ||
      find(library, "curl_multi_init", (void **)&curl.multi_init, error, error_size) ||
      find(library, "curl_multi_cleanup", (void **)&curl.multi_cleanup, error, error_size) ||
      find(library, "curl_multi_setopt", (void **)&curl.multi_setopt, error, error_size) ||
      find(library, "curl_multi_add_handle", (void **)&curl.multi_add_handle, error, error_size) ||
      find(library, "curl_multi_remove_handle", (void **)&curl.multi_remove_handle, error,
           error_size) ||
      find(library, "curl_multi_info_read", (void **)&curl.multi_info_read, error, error_size) ||
      find(library, "curl_multi_socket_action", (void **)&curl.multi_socket_action, error,
           error_size) ||
      find(library, "curl_share_init", (void **)&curl.share_init, error, error_size) ||
      find(library, "curl_share_setopt", (void **)&curl.share_setopt, error, error_size) ||
      find(library, "curl_share_cleanup", (void **)&curl.share_cleanup, error, error_size)) {
    return -1;
  }
  int code = curl.global_init(COURIER_CURL_GLOBAL_ALL);
  if (code != 0) {
    snprintf(error, error_size, "curl_global_init failed (%s)", curl.easy_strerror(code));
    return -1;
  }
  return 0;
}

const char *courier_curl_version(void) { return curl.version(); }

#define COURIER_CURLVERSION_FIRST 0
#define COURIER_CURL_VERSION_ASYNCHDNS (1 << 7)

int courier_curl_resolves_asynchronously(void) {
  struct courier_curl_version_info *info = curl.version_info(COURIER_CURLVERSION_FIRST);
  return info != NULL && (info->features & COURIER_CURL_VERSION_ASYNCHDNS) != 0;
}

void *courier_curl_easy_init(void) { return curl.easy_init(); }
void courier_curl_easy_cleanup(void *easy) { curl.easy_cleanup(easy); }
void courier_curl_easy_reset(void *easy) { curl.easy_reset(easy); }
int courier_curl_easy_perform(void *easy) { return curl.easy_perform(easy); }
int courier_curl_easy_send(void *easy, const void *buffer, size_t length, size_t *sent) {
  return curl.easy_send(easy, (void *)buffer, length, sent);
}
int courier_curl_easy_recv(void *easy, void *buffer, size_t length, size_t *received) {
  return curl.easy_recv(easy, buffer, length, received);
}

#define COURIER_CURLINFO_ACTIVESOCKET (0x500000 + 44)

int courier_curl_easy_active_socket(void *easy, int *socket) {
  // curl_socket_t is an int on every platform but Windows.
  return curl.easy_getinfo(easy, COURIER_CURLINFO_ACTIVESOCKET, socket);
}

// Sets a callback's user pointer (its `…DATA` option, numbered 9,999 below the function's in
// libcurl) and then the callback itself (`…FUNCTION`), returning the first failure.
#define COURIER_SET_CALLBACK(easy, functionOption, callback, user)                          \
  int code = curl.easy_setopt(easy, (functionOption) - 9999, user);                        \
  return code != 0 ? code : curl.easy_setopt(easy, functionOption, callback)

int courier_curl_easy_setopt_close_socket(
  void *easy, courier_curl_close_socket_callback callback, void *user) {
  COURIER_SET_CALLBACK(easy, 20208, callback, user);  // CURLOPT_CLOSESOCKETFUNCTION
}

int courier_curl_easy_setopt_sockopt(
  void *easy, courier_curl_sockopt_callback callback, void *user) {
  COURIER_SET_CALLBACK(easy, 20148, callback, user);  // CURLOPT_SOCKOPTFUNCTION
}

int courier_curl_easy_setopt_prereq(
  void *easy, courier_curl_prereq_callback callback, void *user) {
  COURIER_SET_CALLBACK(easy, 20312, callback, user);  // CURLOPT_PREREQFUNCTION
}

int courier_curl_easy_setopt_seek(void *easy, courier_curl_seek_callback callback, void *user) {
  COURIER_SET_CALLBACK(easy, 20167, callback, user);  // CURLOPT_SEEKFUNCTION
}

int courier_curl_easy_setopt_long(void *easy, int option, long value) {
  return curl.easy_setopt(easy, option, value);
}
int courier_curl_easy_setopt_pointer(void *easy, int option, const void *value) {
  return curl.easy_setopt(easy, option, value);
}
int courier_curl_easy_setopt_offset(void *easy, int option, int64_t value) {
  return curl.easy_setopt(easy, option, value);
}
int courier_curl_easy_setopt_blob(void *easy, int option, const void *data, size_t length) {
  // libcurl's struct curl_blob; flags 1 is CURL_BLOB_COPY: libcurl keeps a copy.
  struct { void *data; size_t len; unsigned int flags; } blob = { (void *)data, length, 1 };
  return curl.easy_setopt(easy, option, &blob);
}
int courier_curl_easy_setopt_data_callback(void *easy, int option, courier_curl_data_callback callback) {
  return curl.easy_setopt(easy, option, callback);
}
int courier_curl_easy_setopt_progress_callback(
  void *easy, int option, courier_curl_progress_callback callback) {
  return curl.easy_setopt(easy, option, callback);
}
int courier_curl_easy_getinfo_long(void *easy, int info, long *value) {
  return curl.easy_getinfo(easy, info, value);
}
int courier_curl_easy_getinfo_offset(void *easy, int info, int64_t *value) {
  return curl.easy_getinfo(easy, info, value);
}
int courier_curl_easy_pause(void *easy, int bitmask) { return curl.easy_pause(easy, bitmask); }
const char *courier_curl_easy_strerror(int code) { return curl.easy_strerror(code); }

void *courier_curl_slist_append(void *list, const char *string) {
  return curl.slist_append(list, string);
}
void courier_curl_slist_free_all(void *list) { curl.slist_free_all(list); }

void *courier_curl_multi_init(void) { return curl.multi_init(); }
int courier_curl_multi_cleanup(void *multi) { return curl.multi_cleanup(multi); }
int courier_curl_multi_setopt_long(void *multi, int option, long value) {
  return curl.multi_setopt(multi, option, value);
}
int courier_curl_multi_setopt_pointer(void *multi, int option, const void *value) {
  return curl.multi_setopt(multi, option, value);
}
int courier_curl_multi_socket_action(void *multi, int socket, int flags, int *running) {
  return curl.multi_socket_action(multi, socket, flags, running);
}
int courier_curl_multi_add_handle(void *multi, void *easy) {
  return curl.multi_add_handle(multi, easy);
}
int courier_curl_multi_remove_handle(void *multi, void *easy) {
  return curl.multi_remove_handle(multi, easy);
}

#define COURIER_CURLSHOPT_SHARE 1
#define COURIER_CURL_LOCK_DATA_CONNECT 5
#define COURIER_CURLOPT_SHARE 10100

void *courier_curl_connection_share(void) {
  void *share = curl.share_init();
  if (share != NULL && curl.share_setopt(share, COURIER_CURLSHOPT_SHARE,
                                         COURIER_CURL_LOCK_DATA_CONNECT) != 0) {
    curl.share_cleanup(share);
    return NULL;
  }
  return share;
}
int courier_curl_share_cleanup(void *share) { return curl.share_cleanup(share); }
int courier_curl_easy_setopt_share(void *easy, void *share) {
  return curl.easy_setopt(easy, COURIER_CURLOPT_SHARE, share);
}

int courier_curl_multi_next_done(void *multi, void **easy, int *result) {
  int left = 0;
  struct courier_curl_message *message;
  while ((message = curl.multi_info_read(multi, &left)) != NULL) {
    if (message->msg == COURIER_CURLMSG_DONE) {
      *easy = message->easy_handle;
      *result = message->data.result;
      return 1;
    }
  }
  return 0;
}

int courier_random_bytes(void *buffer, size_t length) {
#if defined(__APPLE__)
  arc4random_buf(buffer, length);
  return 0;
#else
  size_t filled = 0;
  while (filled < length) {
    ssize_t count = getrandom((char *)buffer + filled, length - filled, 0);
    if (count <= 0) return -1;
    filled += (size_t)count;
  }
  return 0;
#endif
}
