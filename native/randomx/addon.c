/*
 * tsmonero_randomx: a small Node-API binding to the system librandomx (Debian: librandomx0).
 *
 * The library is optional, so this addon never links against it and never includes randomx.h:
 * it dlopen()s "librandomx.so.0" (then "librandomx.so") on first use and resolves the few
 * functions it needs with dlsym, using prototypes declared below. When the library is missing,
 * the addon still loads and status() says why and how to fix it.
 *
 * Off-thread design: every slow call (cache init ~0.5 s, a light-mode hash ~25 ms with the JIT,
 * ~150 ms interpreted) is Node-API async work, i.e. it runs on libuv's threadpool and settles a
 * Promise. We chose this over
 * worker_threads because the 256 MiB caches must be shared by all hashing threads anyway, which
 * native memory on pool threads gives for free, with no extra V8 isolates (~10 MiB and tens of
 * ms each), no message copies, and napi keeping the loop alive while work is pending. The pool
 * is shared with fs/dns/zlib, so the TypeScript layer caps how many of our jobs run at once
 * (default: min(cores, pool size - 1)) - see src/crypto/randomx.ts.
 *
 * Thread safety: a randomx_vm is not thread-safe, so each running hash job takes a VM of its own
 * from the idle list of the cache entry it uses (creating one if none is idle) and gives it back
 * afterwards. Caches are read-only once initialised and shared. VMs belong to exactly one cache
 * entry and are destroyed with its cache, so a VM never points at released cache memory (which
 * randomx_vm_set_cache could not detect if a new cache with the same key reused the address).
 * Entries are reference-counted on the main thread: one reference for the JS handle (or for the
 * job initialising it) and one per hash job in flight, so a cache is never released while a hash
 * using it runs.
 *
 * Seed switches recycle the evicted cache in place (randomx_init_cache with the new key, then
 * randomx_vm_set_cache on its idle VMs) instead of release + alloc: unmapping 256 MiB holds the
 * process's mmap lock for tens of ms on a busy 2-core box, which stalled the main thread whenever
 * V8 or malloc needed to map memory.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <node_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- our declarations of the librandomx C ABI (flag values as documented in randomx.h) ---- */

typedef struct rx_cache rx_cache;     /* randomx_cache, opaque */
typedef struct rx_dataset rx_dataset; /* randomx_dataset, opaque (full mode is not bound yet) */
typedef struct rx_vm rx_vm;           /* randomx_vm, opaque */
typedef int rx_flags;                 /* randomx_flags is a C enum: passed as int */

#define RX_FLAG_DEFAULT 0
#define RX_FLAG_LARGE_PAGES 1
#define RX_FLAG_HARD_AES 2
#define RX_FLAG_FULL_MEM 4
#define RX_FLAG_JIT 8
#define RX_FLAG_SECURE 16
#define RX_FLAG_ARGON2 96 /* ARGON2_SSSE3 (32) | ARGON2_AVX2 (64) */
#define RX_HASH_SIZE 32

static struct {
  rx_flags (*get_flags)(void);
  rx_cache *(*alloc_cache)(rx_flags flags);
  void (*init_cache)(rx_cache *cache, const void *key, size_t key_size);
  void (*release_cache)(rx_cache *cache);
  rx_vm *(*create_vm)(rx_flags flags, rx_cache *cache, rx_dataset *dataset);
  void (*vm_set_cache)(rx_vm *vm, rx_cache *cache);
  void (*destroy_vm)(rx_vm *vm);
  void (*calculate_hash)(rx_vm *vm, const void *input, size_t input_size, void *output);
} rx;

/* ---- loading the library (once per process, shared by all Node environments) ---- */

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static void *lib_handle;
static char lib_name[256];
static char lib_error[1536];
static rx_flags lib_flags;

static const char *const INSTALL_HINT =
    "install the runtime library with `apt-get install librandomx0` (Debian/Ubuntu; "
    "`apt-get install librandomx-dev` also pulls it in, with the headers)";

static void lib_load(void) {
  const char *forced = getenv("TSMONERO_RANDOMX_LIBRARY"); /* tests/tools: pick another file */
  const char *names[2] = {"librandomx.so.0", "librandomx.so"};
  int n_names = 2;
  if (forced != NULL && forced[0] != '\0') {
    names[0] = forced;
    n_names = 1;
  }
  char tried[1024] = "";
  size_t used = 0;
  for (int i = 0; i < n_names && lib_handle == NULL; i++) {
    lib_handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib_handle != NULL) {
      snprintf(lib_name, sizeof lib_name, "%s", names[i]);
    } else if (used < sizeof tried) {
      const char *err = dlerror();
      int w = snprintf(tried + used, sizeof tried - used, "%s%s", used ? "; " : "",
                       err ? err : names[i]);
      if (w > 0) used += (size_t)w;
    }
  }
  if (lib_handle == NULL) {
    snprintf(lib_error, sizeof lib_error, "librandomx could not be loaded (%s): %s", tried,
             INSTALL_HINT);
    return;
  }
  static const struct {
    const char *name;
    void **slot;
  } syms[] = {
      {"randomx_get_flags", (void **)&rx.get_flags},
      {"randomx_alloc_cache", (void **)&rx.alloc_cache},
      {"randomx_init_cache", (void **)&rx.init_cache},
      {"randomx_release_cache", (void **)&rx.release_cache},
      {"randomx_create_vm", (void **)&rx.create_vm},
      {"randomx_vm_set_cache", (void **)&rx.vm_set_cache},
      {"randomx_destroy_vm", (void **)&rx.destroy_vm},
      {"randomx_calculate_hash", (void **)&rx.calculate_hash},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    void *p = dlsym(lib_handle, syms[i].name);
    if (p == NULL) {
      snprintf(lib_error, sizeof lib_error,
               "%s was loaded but does not export %s, so it is not a usable librandomx: %s",
               lib_name, syms[i].name, INSTALL_HINT);
      dlclose(lib_handle);
      lib_handle = NULL;
      memset(&rx, 0, sizeof rx);
      return;
    }
    *syms[i].slot = p;
  }
  lib_flags = rx.get_flags();
}

static int lib_ready(void) {
  pthread_once(&lib_once, lib_load);
  return lib_handle != NULL;
}

/* ---- cache entries ---- */

#define MAX_IDLE_VMS 64

typedef struct entry {
  pthread_mutex_t mu;   /* guards idle[], n_idle, n_vms, vm_flags (touched on pool threads) */
  rx_cache *cache;
  rx_flags cache_flags; /* flags the cache was actually allocated with */
  rx_flags vm_request;  /* flags asked for new VMs */
  rx_flags vm_flags;    /* flags the last VM got after fallbacks; -1 before the first */
  int large_pages;      /* try RX_FLAG_LARGE_PAGES first */
  int n_idle;
  int n_vms;            /* VMs alive (idle or running) */
  rx_vm *idle[MAX_IDLE_VMS];
  int refs;             /* main thread only: owner (JS handle or init job) + hash jobs in flight */
} entry;

/* What a JS handle points at. Only its finalizer frees it, so a released or recycled handle
 * (e == NULL) stays safe to pass back to us. */
typedef struct {
  entry *e;
} handle_box;

static const napi_type_tag HANDLE_TAG = {0x7473606f6e65726fULL, 0x72616e646f6d7802ULL};

static void entry_free(entry *e) {
  /* No job is in flight (refs == 0), so every VM is idle. */
  for (int i = 0; i < e->n_idle; i++) rx.destroy_vm(e->idle[i]);
  if (e->cache != NULL) rx.release_cache(e->cache);
  pthread_mutex_destroy(&e->mu);
  free(e);
}

/* Releasing 256 MiB takes ~15-20 ms (munmap), so it goes to the pool when it can. */
typedef struct {
  napi_async_work work;
  entry *e;
} free_job;

static void free_execute(napi_env env, void *data) { entry_free(((free_job *)data)->e); }

static void free_complete(napi_env env, napi_status status, void *data) {
  free_job *j = data;
  if (status != napi_ok) entry_free(j->e); /* cancelled before it ran */
  napi_delete_async_work(env, j->work);
  free(j);
}

static void entry_unref(napi_env env, entry *e, int may_defer) {
  if (--e->refs != 0) return;
  napi_value name;
  free_job *j = may_defer ? calloc(1, sizeof *j) : NULL;
  if (j != NULL) {
    j->e = e;
    if (napi_create_string_utf8(env, "tsmonero:randomx_release_cache", NAPI_AUTO_LENGTH, &name) ==
            napi_ok &&
        napi_create_async_work(env, NULL, name, free_execute, free_complete, j, &j->work) ==
            napi_ok) {
      if (napi_queue_async_work(env, j->work) == napi_ok) return;
      napi_delete_async_work(env, j->work);
    }
    free(j);
  }
  entry_free(e);
}

/* GC'd (or environment teardown): drop the handle's reference inline, the loop may be ending. */
static void box_finalize(napi_env env, void *data, void *hint) {
  handle_box *b = data;
  if (b->e != NULL) entry_unref(env, b->e, 0);
  free(b);
}

/* ---- small N-API helpers ---- */

#define CHECK(call)                                                                        \
  do {                                                                                     \
    if ((call) != napi_ok) return throw_last(env, #call);                                 \
  } while (0)

static napi_value throw_last(napi_env env, const char *what) {
  const napi_extended_error_info *info = NULL;
  napi_get_last_error_info(env, &info);
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) {
    char msg[256];
    snprintf(msg, sizeof msg, "tsmonero_randomx: %s failed: %s", what,
             info && info->error_message ? info->error_message : "unknown error");
    napi_throw_error(env, NULL, msg);
  }
  return NULL;
}

static napi_value throw_unavailable(napi_env env) {
  char msg[sizeof lib_error + 32];
  snprintf(msg, sizeof msg, "RandomX unavailable: %s", lib_error);
  napi_throw_error(env, "ERR_RANDOMX_UNAVAILABLE", msg);
  return NULL;
}

/* Copies a Uint8Array argument into fresh malloc'd memory (so pool threads never touch JS memory). */
static int copy_bytes(napi_env env, napi_value v, const char *what, uint8_t **out, size_t *len) {
  bool is_ta = false;
  napi_typedarray_type type;
  size_t n = 0;
  void *data = NULL;
  if (napi_is_typedarray(env, v, &is_ta) != napi_ok || !is_ta ||
      napi_get_typedarray_info(env, v, &type, &n, &data, NULL, NULL) != napi_ok ||
      type != napi_uint8_array) {
    char msg[96];
    snprintf(msg, sizeof msg, "%s must be a Uint8Array", what);
    napi_throw_type_error(env, NULL, msg);
    return 0;
  }
  *out = malloc(n ? n : 1);
  if (*out == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return 0;
  }
  if (n) memcpy(*out, data, n);
  *len = n;
  return 1;
}

/* The box behind a handle argument; throws a TypeError for anything else. */
static handle_box *get_box(napi_env env, napi_value v) {
  bool ok = false;
  void *data = NULL;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external ||
      napi_check_object_type_tag(env, v, &HANDLE_TAG, &ok) != napi_ok || !ok ||
      napi_get_value_external(env, v, &data) != napi_ok) {
    napi_throw_type_error(env, NULL, "expected a RandomX cache handle");
    return NULL;
  }
  return data;
}

/* The live entry behind a handle argument; throws if it was released or recycled. */
static entry *get_entry(napi_env env, napi_value v) {
  handle_box *b = get_box(env, v);
  if (b == NULL) return NULL;
  if (b->e == NULL) {
    napi_throw_error(env, "ERR_RANDOMX_RELEASED", "this RandomX cache handle was released");
    return NULL;
  }
  return b->e;
}

static napi_value make_int(napi_env env, int64_t v) {
  napi_value r;
  napi_create_int64(env, v, &r);
  return r;
}

static void set_prop(napi_env env, napi_value obj, const char *key, napi_value v) {
  napi_set_named_property(env, obj, key, v);
}

/* ---- status() ---- */

static napi_value js_status(napi_env env, napi_callback_info info) {
  napi_value out, b, s;
  CHECK(napi_create_object(env, &out));
  int ok = lib_ready();
  CHECK(napi_get_boolean(env, ok, &b));
  set_prop(env, out, "available", b);
  if (ok) {
    set_prop(env, out, "flags", make_int(env, lib_flags));
    CHECK(napi_create_string_utf8(env, lib_name, NAPI_AUTO_LENGTH, &s));
    set_prop(env, out, "library", s);
  } else {
    CHECK(napi_create_string_utf8(env, lib_error, NAPI_AUTO_LENGTH, &s));
    set_prop(env, out, "reason", s);
  }
  return out;
}

/* ---- cacheCreate(key, cacheFlags, vmFlags, largePages) -> Promise<handle> ----
 * ---- cacheRecycle(handle, key) -> Promise<handle>: re-key an idle cache in place ---- */

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  uint8_t *key;
  size_t key_len;
  entry *e;     /* the job holds the entry's owner reference until the handle exists */
  int recycle;  /* e->cache exists: re-initialise it instead of allocating */
  const char *error;
} init_job;

static void init_execute(napi_env env, void *data) {
  init_job *j = data;
  entry *e = j->e;
  if (!j->recycle) {
    rx_flags base = e->cache_flags;
    /* Fallbacks, as monerod does: huge pages if asked, then plain pages, then no optional flags. */
    rx_flags tries[3];
    int n = 0;
    if (e->large_pages) tries[n++] = base | RX_FLAG_LARGE_PAGES;
    tries[n++] = base;
    if (base != RX_FLAG_DEFAULT) tries[n++] = RX_FLAG_DEFAULT;
    for (int i = 0; i < n && e->cache == NULL; i++) {
      e->cache = rx.alloc_cache(tries[i]);
      if (e->cache != NULL) e->cache_flags = tries[i];
    }
    if (e->cache == NULL) {
      j->error = "randomx_alloc_cache failed (out of memory? a RandomX cache needs 256 MiB)";
      return;
    }
  }
  rx.init_cache(e->cache, j->key, j->key_len);
  /* Recycled: the idle VMs were set up for the old key; re-derive their programs now. No job can
   * use this entry meanwhile (it has no handle yet), the lock is only for the memory ordering. */
  pthread_mutex_lock(&e->mu);
  for (int i = 0; i < e->n_idle; i++) rx.vm_set_cache(e->idle[i], e->cache);
  pthread_mutex_unlock(&e->mu);
}

static void init_complete(napi_env env, napi_status status, void *data) {
  init_job *j = data;
  entry *e = j->e;
  napi_value v = NULL, err_msg, err;
  const char *fail = j->error;
  if (status != napi_ok && fail == NULL) fail = "cache initialisation was cancelled";
  handle_box *b = NULL;
  if (fail == NULL) {
    b = malloc(sizeof *b);
    if (b == NULL || napi_create_external(env, b, box_finalize, NULL, &v) != napi_ok) {
      free(b);
      b = NULL;
      fail = "could not create the cache handle";
    } else {
      b->e = e; /* the box now owns the job's reference */
      if (napi_type_tag_object(env, v, &HANDLE_TAG) != napi_ok)
        fail = "could not tag the cache handle"; /* the box's finalizer will drop it */
    }
  }
  if (fail == NULL) {
    napi_resolve_deferred(env, j->deferred, v);
  } else {
    if (b == NULL) entry_unref(env, e, 1);
    napi_create_string_utf8(env, fail, NAPI_AUTO_LENGTH, &err_msg);
    napi_create_error(env, NULL, err_msg, &err);
    napi_reject_deferred(env, j->deferred, err);
  }
  napi_delete_async_work(env, j->work);
  free(j->key);
  free(j);
}

/* Queues j; on failure throws and returns NULL, leaving j and j->e to the caller. */
static napi_value queue_init(napi_env env, init_job *j) {
  napi_value promise, name;
  if (napi_create_promise(env, &j->deferred, &promise) != napi_ok ||
      napi_create_string_utf8(env, "tsmonero:randomx_init_cache", NAPI_AUTO_LENGTH, &name) !=
          napi_ok ||
      napi_create_async_work(env, NULL, name, init_execute, init_complete, j, &j->work) !=
          napi_ok)
    return throw_last(env, "creating the cache initialisation");
  if (napi_queue_async_work(env, j->work) != napi_ok) {
    napi_delete_async_work(env, j->work);
    return throw_last(env, "queueing the cache initialisation");
  }
  return promise;
}

static napi_value js_cache_create(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (!lib_ready()) return throw_unavailable(env);
  if (argc < 4) {
    napi_throw_type_error(env, NULL, "cacheCreate(key, cacheFlags, vmFlags, largePages)");
    return NULL;
  }
  int32_t cache_flags = 0, vm_flags = 0;
  bool large = false;
  CHECK(napi_get_value_int32(env, argv[1], &cache_flags));
  CHECK(napi_get_value_int32(env, argv[2], &vm_flags));
  CHECK(napi_get_value_bool(env, argv[3], &large));
  if ((vm_flags & RX_FLAG_FULL_MEM) != 0) {
    napi_throw_range_error(env, NULL, "full-dataset mode (RANDOMX_FLAG_FULL_MEM) is not bound");
    return NULL;
  }
  init_job *j = calloc(1, sizeof *j);
  entry *e = calloc(1, sizeof *e);
  if (j == NULL || e == NULL) {
    free(j);
    free(e);
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  if (!copy_bytes(env, argv[0], "seed hash (RandomX key)", &j->key, &j->key_len)) {
    free(j);
    free(e);
    return NULL;
  }
  pthread_mutex_init(&e->mu, NULL);
  e->cache_flags = cache_flags & ~RX_FLAG_LARGE_PAGES;
  e->vm_request = vm_flags & ~RX_FLAG_LARGE_PAGES;
  e->vm_flags = -1;
  e->large_pages = large;
  e->refs = 1; /* the owner's: this job's, then the handle's */
  j->e = e;
  napi_value promise = queue_init(env, j);
  if (promise == NULL) {
    entry_free(e);
    free(j->key);
    free(j);
  }
  return promise;
}

static napi_value js_cache_recycle(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "cacheRecycle(cacheHandle, key)");
    return NULL;
  }
  handle_box *b = get_box(env, argv[0]);
  if (b == NULL) return NULL;
  entry *e = get_entry(env, argv[0]);
  if (e == NULL) return NULL;
  if (e->refs != 1) {
    napi_throw_error(env, "ERR_RANDOMX_BUSY", "cannot recycle a RandomX cache while hashes use it");
    return NULL;
  }
  init_job *j = calloc(1, sizeof *j);
  if (j == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  if (!copy_bytes(env, argv[1], "seed hash (RandomX key)", &j->key, &j->key_len)) {
    free(j);
    return NULL;
  }
  j->e = e;
  j->recycle = 1;
  napi_value promise = queue_init(env, j);
  if (promise == NULL) {
    free(j->key);
    free(j);
    return NULL; /* nothing moved: the old handle still owns the entry */
  }
  b->e = NULL; /* the old handle is dead; its reference passed to the job */
  return promise;
}

/* ---- hash(handle, input) -> Promise<Uint8Array> ---- */

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  entry *e;
  uint8_t *input;
  size_t input_len;
  uint8_t out[RX_HASH_SIZE];
  const char *error;
} hash_job;

static rx_vm *vm_create(entry *e, rx_flags *used) {
  /* Same fallback order as monerod's rx-slow-hash.c: huge pages, asked flags, interpreter. */
  rx_flags tries[3];
  int n = 0;
  if (e->large_pages) tries[n++] = e->vm_request | RX_FLAG_LARGE_PAGES;
  tries[n++] = e->vm_request;
  if (e->vm_request != RX_FLAG_DEFAULT) tries[n++] = RX_FLAG_DEFAULT;
  for (int i = 0; i < n; i++) {
    rx_vm *vm = rx.create_vm(tries[i], e->cache, NULL);
    if (vm != NULL) {
      *used = tries[i];
      return vm;
    }
  }
  return NULL;
}

static void hash_execute(napi_env env, void *data) {
  hash_job *j = data;
  entry *e = j->e;
  rx_vm *vm = NULL;
  pthread_mutex_lock(&e->mu);
  if (e->n_idle > 0) vm = e->idle[--e->n_idle];
  pthread_mutex_unlock(&e->mu);
  if (vm == NULL) {
    rx_flags used = 0;
    vm = vm_create(e, &used);
    if (vm == NULL) {
      j->error = "randomx_create_vm failed (out of memory?)";
      return;
    }
    pthread_mutex_lock(&e->mu);
    e->n_vms++;
    e->vm_flags = used;
    pthread_mutex_unlock(&e->mu);
  }
  rx.calculate_hash(vm, j->input, j->input_len, j->out);
  pthread_mutex_lock(&e->mu);
  if (e->n_idle < MAX_IDLE_VMS) {
    e->idle[e->n_idle++] = vm;
    vm = NULL;
  } else {
    e->n_vms--;
  }
  pthread_mutex_unlock(&e->mu);
  if (vm != NULL) rx.destroy_vm(vm);
}

static void hash_complete(napi_env env, napi_status status, void *data) {
  hash_job *j = data;
  const char *fail = j->error;
  if (status != napi_ok && fail == NULL) fail = "hashing was cancelled";
  napi_value ab, arr, err_msg, err;
  void *mem = NULL;
  if (fail == NULL) {
    if (napi_create_arraybuffer(env, RX_HASH_SIZE, &mem, &ab) == napi_ok &&
        napi_create_typedarray(env, napi_uint8_array, RX_HASH_SIZE, ab, 0, &arr) == napi_ok) {
      memcpy(mem, j->out, RX_HASH_SIZE);
      napi_resolve_deferred(env, j->deferred, arr);
    } else {
      fail = "could not allocate the result";
    }
  }
  if (fail != NULL) {
    napi_create_string_utf8(env, fail, NAPI_AUTO_LENGTH, &err_msg);
    napi_create_error(env, NULL, err_msg, &err);
    napi_reject_deferred(env, j->deferred, err);
  }
  napi_delete_async_work(env, j->work);
  entry_unref(env, j->e, 1); /* may release the cache if JS already dropped it */
  free(j->input);
  free(j);
}

static napi_value js_hash(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], promise, name;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "hash(cacheHandle, input)");
    return NULL;
  }
  entry *e = get_entry(env, argv[0]);
  if (e == NULL) return NULL;
  hash_job *j = calloc(1, sizeof *j);
  if (j == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  if (!copy_bytes(env, argv[1], "input", &j->input, &j->input_len)) {
    free(j);
    return NULL;
  }
  j->e = e;
  if (napi_create_promise(env, &j->deferred, &promise) != napi_ok ||
      napi_create_string_utf8(env, "tsmonero:randomx_calculate_hash", NAPI_AUTO_LENGTH, &name) !=
          napi_ok ||
      napi_create_async_work(env, NULL, name, hash_execute, hash_complete, j, &j->work) !=
          napi_ok ||
      napi_queue_async_work(env, j->work) != napi_ok) {
    free(j->input);
    free(j);
    return throw_last(env, "queueing the hash");
  }
  e->refs++; /* dropped in hash_complete */
  return promise;
}

/* ---- cacheRelease(handle): drop the handle's reference (idempotent) ---- */

static napi_value js_cache_release(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1) {
    napi_throw_type_error(env, NULL, "cacheRelease(cacheHandle)");
    return NULL;
  }
  handle_box *b = get_box(env, argv[0]);
  if (b == NULL) return NULL;
  if (b->e != NULL) {
    entry *e = b->e;
    b->e = NULL;
    entry_unref(env, e, 1);
  }
  return NULL;
}

/* ---- cacheInfo(handle) -> { cacheFlags, vmFlags, vms, idleVms, inFlight } ---- */

static napi_value js_cache_info(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1) {
    napi_throw_type_error(env, NULL, "cacheInfo(cacheHandle)");
    return NULL;
  }
  entry *e = get_entry(env, argv[0]);
  if (e == NULL) return NULL;
  pthread_mutex_lock(&e->mu);
  int vm_flags = e->vm_flags, vms = e->n_vms, idle = e->n_idle;
  pthread_mutex_unlock(&e->mu);
  CHECK(napi_create_object(env, &out));
  set_prop(env, out, "cacheFlags", make_int(env, e->cache_flags));
  set_prop(env, out, "vmFlags", make_int(env, vm_flags));
  set_prop(env, out, "vms", make_int(env, vms));
  set_prop(env, out, "idleVms", make_int(env, idle));
  set_prop(env, out, "inFlight", make_int(env, e->refs - 1));
  return out;
}

static napi_value Init(napi_env env, napi_value exports) {
  static const struct {
    const char *name;
    napi_callback fn;
  } fns[] = {
      {"status", js_status},
      {"cacheCreate", js_cache_create},
      {"hash", js_hash},
      {"cacheRecycle", js_cache_recycle},
      {"cacheRelease", js_cache_release},
      {"cacheInfo", js_cache_info},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    napi_value f;
    if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f) != napi_ok ||
        napi_set_named_property(env, exports, fns[i].name, f) != napi_ok)
      return NULL;
  }
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
