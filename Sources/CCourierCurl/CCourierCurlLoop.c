// The event loop of CurlTransport's driver, in libcurl's socket mode (curl_multi_socket_action):
// libcurl says which sockets to watch and when its timer is due, through two callbacks that
// run inside libcurl calls (made under the driver's lock); one thread sleeps in epoll_wait on
// those sockets without touching the multi handle, so that the threads submitting requests can
// call libcurl meanwhile and send at once, instead of waking the sleeping thread to do it.
//
// The loop serves two multi handles (the transport's requests, and its WebSocket connections
// while they connect), and watches sockets of the driver's own besides (open WebSocket
// connections, no longer libcurl's to watch). Each epoll entry says whose socket it is: the
// upper half of its 64-bit tag is the owner (0 or 1: a multi handle; 2: the driver's own), the
// lower half the socket.
//
// Linux only (epoll, eventfd); elsewhere the functions report failure and are never called.
#include "CCourierCurl.h"

#if defined(__linux__)

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

// From include/curl/multi.h.
#define CURLMOPT_SOCKETFUNCTION 20001
#define CURLMOPT_SOCKETDATA 10002
#define CURLMOPT_TIMERFUNCTION 20004
#define CURLMOPT_TIMERDATA 10005
#define CURL_POLL_IN 1
#define CURL_POLL_OUT 2
#define CURL_POLL_REMOVE 4
#define CURL_CSELECT_IN 0x01
#define CURL_CSELECT_OUT 0x02
#define CURL_CSELECT_ERR 0x04

#define OWNER_WATCHED 2

struct courier_curl_loop;

// What a multi handle's callbacks are given: the loop, and which of its multi handles calls.
struct loop_side {
  struct courier_curl_loop *loop;
  int owner;
};

struct courier_curl_loop {
  int epoll;
  int wake;  // an eventfd in the epoll set
  // Each multi handle's timer: due at this CLOCK_MONOTONIC time in milliseconds, or -1.
  long long timer_due[2];
  struct loop_side sides[2];
};

static uint64_t tag(int owner, int socket) {
  return ((uint64_t)owner << 32) | (uint32_t)socket;
}

static long long now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// CURLMOPT_SOCKETFUNCTION: watch `socket` for what libcurl waits for, or stop watching it.
static int socket_changed(void *easy, int socket, int what, void *user, void *socket_user) {
  (void)easy;
  (void)socket_user;
  struct loop_side *side = user;
  struct courier_curl_loop *loop = side->loop;
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(loop->epoll, EPOLL_CTL_DEL, socket, NULL);  // gone already if it was closed
    return 0;
  }
  struct epoll_event event = {0};
  event.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
  event.data.u64 = tag(side->owner, socket);
  if (epoll_ctl(loop->epoll, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
    epoll_ctl(loop->epoll, EPOLL_CTL_ADD, socket, &event);
  }
  return 0;
}

// CURLMOPT_TIMERFUNCTION: libcurl wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` in
// `timeout_ms` (-1: never).
static int timer_changed(void *multi, long timeout_ms, void *user) {
  (void)multi;
  struct loop_side *side = user;
  side->loop->timer_due[side->owner] = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
  return 0;
}

static int attach(struct courier_curl_loop *loop, void *multi, int owner) {
  struct loop_side *side = &loop->sides[owner];
  side->loop = loop;
  side->owner = owner;
  return courier_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, side) != 0 ||
         courier_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETFUNCTION,
                                           (void *)socket_changed) != 0 ||
         courier_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, side) != 0 ||
         courier_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERFUNCTION,
                                           (void *)timer_changed) != 0;
}

courier_curl_loop *courier_curl_loop_create(void *multi, void *second) {
  struct courier_curl_loop *loop = calloc(1, sizeof *loop);
  if (loop == NULL) return NULL;
  loop->timer_due[0] = -1;
  loop->timer_due[1] = -1;
  loop->epoll = epoll_create1(EPOLL_CLOEXEC);
  loop->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  struct epoll_event event = {0};
  event.events = EPOLLIN;
  event.data.u64 = tag(OWNER_WATCHED + 1, loop->wake);
  if (loop->epoll < 0 || loop->wake < 0 ||
      epoll_ctl(loop->epoll, EPOLL_CTL_ADD, loop->wake, &event) != 0 || attach(loop, multi, 0) ||
      attach(loop, second, 1)) {
    courier_curl_loop_destroy(loop);
    return NULL;
  }
  return loop;
}

void courier_curl_loop_destroy(courier_curl_loop *loop) {
  if (loop->epoll >= 0) close(loop->epoll);
  if (loop->wake >= 0) close(loop->wake);
  free(loop);
}

long courier_curl_loop_timer(courier_curl_loop *loop) {
  long long due = loop->timer_due[0];
  if (due < 0 || (loop->timer_due[1] >= 0 && loop->timer_due[1] < due)) due = loop->timer_due[1];
  if (due < 0) return -1;
  long long left = due - now_ms();
  return left > 0 ? (long)left : 0;
}

int courier_curl_loop_timer_fired(courier_curl_loop *loop, int owner) {
  if (loop->timer_due[owner] < 0 || loop->timer_due[owner] > now_ms()) return 0;
  loop->timer_due[owner] = -1;
  return 1;
}

int courier_curl_loop_watch(courier_curl_loop *loop, int socket, int reading, int writing) {
  if (!reading && !writing) {
    // Left out of the set: epoll would report a hang-up or an error again and again.
    return epoll_ctl(loop->epoll, EPOLL_CTL_DEL, socket, NULL) == 0 || errno == ENOENT ? 0 : -1;
  }
  struct epoll_event event = {0};
  event.events = (reading ? EPOLLIN : 0) | (writing ? EPOLLOUT : 0);
  event.data.u64 = tag(OWNER_WATCHED, socket);
  if (epoll_ctl(loop->epoll, EPOLL_CTL_MOD, socket, &event) == 0) return 0;
  if (errno != ENOENT) return -1;
  return epoll_ctl(loop->epoll, EPOLL_CTL_ADD, socket, &event);
}

int courier_curl_loop_wait(
  courier_curl_loop *loop, int timeout_ms, int *sockets, int *flags, int *owners, int capacity) {
  struct epoll_event events[256];
  int most = capacity < 256 ? capacity : 256;
  int count = epoll_wait(loop->epoll, events, most, timeout_ms);
  if (count < 0) return errno == EINTR ? 0 : -1;
  int ready = 0;
  for (int i = 0; i < count; i++) {
    int owner = (int)(events[i].data.u64 >> 32);
    if (owner > OWNER_WATCHED) {
      uint64_t value;
      while (read(loop->wake, &value, sizeof value) > 0) {
      }
      continue;
    }
    owners[ready] = owner;
    sockets[ready] = (int)(uint32_t)events[i].data.u64;
    flags[ready] = (events[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                   (events[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                   (events[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
    ready++;
  }
  return ready;
}

void courier_curl_loop_wake(courier_curl_loop *loop) {
  uint64_t one = 1;
  ssize_t written = write(loop->wake, &one, sizeof one);
  (void)written;  // a full counter wakes the loop as well
}

#else

courier_curl_loop *courier_curl_loop_create(void *multi, void *second) {
  (void)multi;
  (void)second;
  return NULL;
}
void courier_curl_loop_destroy(courier_curl_loop *loop) { (void)loop; }
long courier_curl_loop_timer(courier_curl_loop *loop) {
  (void)loop;
  return -1;
}
int courier_curl_loop_timer_fired(courier_curl_loop *loop, int owner) {
  (void)loop;
  (void)owner;
  return 0;
}
int courier_curl_loop_watch(courier_curl_loop *loop, int socket, int reading, int writing) {
  (void)loop;
  (void)socket;
  (void)reading;
  (void)writing;
  return -1;
}
int courier_curl_loop_wait(
  courier_curl_loop *loop, int timeout_ms, int *sockets, int *flags, int *owners, int capacity) {
  (void)loop;
  (void)timeout_ms;
  (void)sockets;
  (void)flags;
  (void)owners;
  (void)capacity;
  return -1;
}
void courier_curl_loop_wake(courier_curl_loop *loop) { (void)loop; }

#endif
