{
  "targets": [
    {
      "target_name": "kafkite_sendfile",
      "sources": ["native/sendfile.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra"]
    },
    {
      "target_name": "kafkite_crc32c",
      "sources": ["native/crc32c.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra"]
    },
    {
      "target_name": "kafkite_storage",
      "sources": ["native/storage.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra"]
    }
  ]
}
