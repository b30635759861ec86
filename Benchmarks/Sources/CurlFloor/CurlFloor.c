// libcurl from C, as plainly as it is used: see CurlFloor.h. The option and info values are
// libcurl's, from its public include/curl/curl.h, stable across versions.
#include "CurlFloor.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  OPT_WRITEDATA = 10001,
  OPT_URL = 10002,
  OPT_WRITEFUNCTION = 20011,
  OPT_NOSIGNAL = 99,
  INFO_RESPONSE_CODE = 0x200002,
  MSG_DONE = 1,
  GLOBAL_ALL = 3,
};

typedef struct {
  int msg;
  void *easy;
  union {
    void *whatever;
    int result;
  } data;
} curl_message;

static void *(*easy_init)(void);
static int (*easy_setopt)(void *, int, ...);
static int (*easy_perform)(void *);
static int (*easy_getinfo)(void *, int, ...);
static void (*easy_cleanup)(void *);
static void *(*multi_init)(void);
static int (*multi_add_handle)(void *, void *);
static int (*multi_remove_handle)(void *, void *);
static int (*multi_perform)(void *, int *);
static int (*multi_poll)(void *, void *, unsigned, int, int *);
static curl_message *(*multi_info_read)(void *, int *);
static int (*multi_cleanup)(void *);
static int (*global_init)(long);

int curl_floor_load(void) {
  void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!library) library = dlopen("libcurl.4.dylib", RTLD_NOW | RTLD_LOCAL);
  if (!library) return -1;
#define LOAD(name, symbol) \
  if (!(*(void **)&name = dlsym(library, symbol))) return -1;
  LOAD(easy_init, "curl_easy_init")
  LOAD(easy_setopt, "curl_easy_setopt")
  LOAD(easy_perform, "curl_easy_perform")
  LOAD(easy_getinfo, "curl_easy_getinfo")
  LOAD(easy_cleanup, "curl_easy_cleanup")
  LOAD(multi_init, "curl_multi_init")
  LOAD(multi_add_handle, "curl_multi_add_handle")
  LOAD(multi_remove_handle, "curl_multi_remove_handle")
  LOAD(multi_perform, "curl_multi_perform")
  LOAD(multi_poll, "curl_multi_poll")
  LOAD(multi_info_read, "curl_multi_info_read")
  LOAD(multi_cleanup, "curl_multi_cleanup")
  LOAD(global_init, "curl_global_init")
#undef LOAD
  return global_init(GLOBAL_ALL) == 0 ? 0 : -1;
}

/// One transfer's body buffer, reused from request to request.
typedef struct {
  char *bytes;
  size_t count, capacity;
  long long total;
} buffer;

static size_t collect(char *data, size_t size, size_t count, void *user) {
  buffer *body = user;
  size_t length = size * count;
  if (body->count + length > body->capacity) {
    size_t capacity = body->capacity ? body->capacity * 2 : 16384;
    while (capacity < body->count + length) capacity *= 2;
    char *grown = realloc(body->bytes, capacity);
    if (!grown) return 0;
    body->bytes = grown;
    body->capacity = capacity;
  }
  memcpy(body->bytes + body->count, data, length);
  body->count += length;
  return length;
}

/// Points `easy` at request number `index`, its body into `body` from empty.
static void prepare(void *easy, buffer *body, const char *prefix, int index) {
  char url[2048];
  snprintf(url, sizeof url, "%s%d", prefix, index);
  easy_setopt(easy, OPT_URL, url);  // libcurl copies the string
  body->count = 0;
}

/// Whether `easy` ended with a 200; adds its body's bytes to the total.
static int succeeded(void *easy, buffer *body) {
  long status = 0;
  easy_getinfo(easy, INFO_RESPONSE_CODE, &status);
  body->total += (long long)body->count;
  return status == 200;
}

static void *make_handle(buffer *body) {
  void *easy = easy_init();
  if (!easy) return NULL;
  easy_setopt(easy, OPT_NOSIGNAL, 1L);
  easy_setopt(easy, OPT_WRITEFUNCTION, collect);
  easy_setopt(easy, OPT_WRITEDATA, body);
  return easy;
}

static long long sequential(const char *prefix, int first, int count) {
  buffer body = {0};
  void *easy = make_handle(&body);
  if (!easy) return -1;
  long long result = 0;
  for (int index = first; index < first + count; index++) {
    prepare(easy, &body, prefix, index);
    if (easy_perform(easy) != 0 || !succeeded(easy, &body)) {
      result = -1;
      break;
    }
  }
  if (result == 0) result = body.total;
  easy_cleanup(easy);
  free(body.bytes);
  return result;
}

static long long concurrent(const char *prefix, int first, int count, int in_flight) {
  if (in_flight > count) in_flight = count;
  void *multi = multi_init();
  void **handles = calloc((size_t)in_flight, sizeof *handles);
  buffer *bodies = calloc((size_t)in_flight, sizeof *bodies);
  long long result = 0;
  int next = first, end = first + count, running = 0;
  for (int slot = 0; slot < in_flight; slot++) {
    handles[slot] = make_handle(&bodies[slot]);
    if (!handles[slot]) {
      result = -1;
      goto done;
    }
    prepare(handles[slot], &bodies[slot], prefix, next++);
    multi_add_handle(multi, handles[slot]);
  }
  int active = in_flight;
  while (active > 0) {
    if (multi_perform(multi, &running) != 0) {
      result = -1;
      goto done;
    }
    int left = 0;
    curl_message *message;
    while ((message = multi_info_read(multi, &left))) {
      if (message->msg != MSG_DONE) continue;
      void *easy = message->easy;
      int slot = 0;
      while (handles[slot] != easy) slot++;
      if (message->data.result != 0 || !succeeded(easy, &bodies[slot])) {
        result = -1;
        goto done;
      }
      multi_remove_handle(multi, easy);
      if (next < end) {
        prepare(easy, &bodies[slot], prefix, next++);
        multi_add_handle(multi, easy);
      } else {
        active--;
      }
    }
    if (active > 0 && multi_poll(multi, NULL, 0, 1000, NULL) != 0) {
      result = -1;
      goto done;
    }
  }
  for (int slot = 0; slot < in_flight; slot++) result += bodies[slot].total;
done:
  for (int slot = 0; slot < in_flight; slot++) {
    if (handles[slot]) {
      multi_remove_handle(multi, handles[slot]);
      easy_cleanup(handles[slot]);
    }
    free(bodies[slot].bytes);
  }
  free(handles);
  free(bodies);
  multi_cleanup(multi);
  return result;
}

long long curl_floor_get(const char *prefix, int first, int count, int in_flight) {
  if (!easy_init || count <= 0) return -1;
  return in_flight <= 1 ? sequential(prefix, first, count) : concurrent(prefix, first, count, in_flight);
}
