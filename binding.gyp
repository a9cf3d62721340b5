{
  "targets": [
    {
      "target_name": "tsmonero_crypto",
      "sources": [
        "native/crypto/addon.c",
        "native/crypto/ge.c",
        "native/crypto/ge-x8.c",
        "native/crypto/sc.c",
        "native/crypto/keccak.c",
        "native/crypto/monero.c",
        "native/crypto/msm.c",
        "native/crypto/ringct.c",
        "native/crypto/bpplus.c",
        "native/crypto/clsag.c"
      ],
      "cflags": ["-O3", "-fno-strict-aliasing", "-Wall", "-Wextra", "-Wno-unused-parameter", "-pthread"],
      "cflags!": ["-O2", "-O0"],
      "libraries": ["-lpthread"],
      "defines": ["NAPI_VERSION=8"]
    },
    {
      "target_name": "tsmonero_net",
      "sources": [
        "native/net/addon.c"
      ],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "defines": ["NAPI_VERSION=8"]
    },
    {
      "target_name": "tsmonero_randomx",
      "sources": [
        "native/randomx/addon.c"
      ],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "libraries": ["-ldl", "-lpthread"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
