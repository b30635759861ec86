// The system's libpsl (the Public Suffix List), loaded at run time like libcurl: Courier's
// cookie jar asks it whether a cookie's Domain is a public suffix ("co.uk", "github.io").
#include "CCourierCurl.h"

#include <dlfcn.h>
#include <pthread.h>

typedef const void *(*psl_latest_fn)(const char *);
typedef const void *(*psl_builtin_fn)(void);
typedef int (*psl_is_public_suffix2_fn)(const void *, const char *, int);

// PSL_TYPE_ANY: ICANN and private suffixes alike, as browsers treat them.
#define COURIER_PSL_TYPE_ANY 3

static pthread_once_t psl_once = PTHREAD_ONCE_INIT;
static const void *psl_context = NULL;
static psl_is_public_suffix2_fn psl_is_public_suffix2 = NULL;

static void psl_load(void) {
  static const char *names[] = {"libpsl.so.5", "libpsl.so", "libpsl.5.dylib"};
  void *library = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {
    library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (library == NULL) return;
  psl_latest_fn latest = (psl_latest_fn)dlsym(library, "psl_latest");
  psl_builtin_fn builtin = (psl_builtin_fn)dlsym(library, "psl_builtin");
  psl_is_public_suffix2 = (psl_is_public_suffix2_fn)dlsym(library, "psl_is_public_suffix2");
  // The newest list on the system (its own file), else the one built into the library.
  if (latest != NULL) psl_context = latest(NULL);
  if (psl_context == NULL && builtin != NULL) psl_context = builtin();
  if (psl_context == NULL) psl_is_public_suffix2 = NULL;
}

int courier_psl_is_public_suffix(const char *domain) {
  pthread_once(&psl_once, psl_load);
  if (psl_is_public_suffix2 == NULL) return -1;
  return psl_is_public_suffix2(psl_context, domain, COURIER_PSL_TYPE_ANY) ? 1 : 0;
}
