/* Node-API helpers shared by the kernel's glue code (ringct.c, bpplus.c, clsag.c). */
#ifndef TSM_NAPI_GLUE_H
#define TSM_NAPI_GLUE_H
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

/* 1 and the bytes of v when it is a Uint8Array, else 0. */
static inline int tsm_napi_u8(napi_env env, napi_value v, uint8_t **p, size_t *n) {
  napi_typedarray_type type;
  void *data;
  if (napi_get_typedarray_info(env, v, &type, n, &data, NULL, NULL) != napi_ok || type != napi_uint8_array) return 0;
  *p = data;
  return 1;
}

/* A prover's return code as a JS number: -1 throws "out of memory", -2 a TypeError naming `what`. */
static inline napi_value tsm_napi_code(napi_env env, int rc, const char *what) {
  napi_value res;
  if (rc == -1) {
    napi_throw_error(env, NULL, "tsmonero_crypto: out of memory");
    return NULL;
  }
  if (rc == -2) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  napi_create_int32(env, rc, &res);
  return res;
}

#endif
