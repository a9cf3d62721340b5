/*
 * tsmonero_net: socket options Node's net module does not expose.
 *
 * quickAck(fd): TCP_QUICKACK on a connected TCP socket, so the kernel acknowledges the next
 * segments at once instead of delaying the ACK (Linux: up to 40 ms). Why the RPC servers need it:
 * epee's HTTP client (monero-wallet-rpc, monerod's bootstrap client, monero-wallet-cli) writes a
 * request's head and body with two send() calls and leaves Nagle's algorithm on, so the body waits
 * in the client's kernel until the head is acknowledged; a server that delays that ACK adds ~40 ms
 * to every plain-HTTP request (monerod does). The flag is not sticky: the kernel goes back to
 * delayed ACKs once the connection looks interactive, so the server sets it again after each answer.
 *
 * Returns true when the option was set, false where it does not exist (non-Linux) or failed.
 */
#include <node_api.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static napi_value quick_ack(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_value out;
  int32_t fd = -1;
  int ok = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_get_value_int32(env, argv[0], &fd) != napi_ok) {
    napi_throw_type_error(env, NULL, "tsmonero_net: quickAck(fd) wants a file descriptor number");
    return NULL;
  }
#ifdef TCP_QUICKACK
  if (fd >= 0) {
    int one = 1;
    ok = setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one) == 0;
  }
#endif
  napi_get_boolean(env, ok, &out);
  return out;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "quickAck", NAPI_AUTO_LENGTH, quick_ack, NULL, &fn) != napi_ok ||
      napi_set_named_property(env, exports, "quickAck", fn) != napi_ok)
    return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
