// Storage syscalls Node has no binding for. syncfs(2) writes out and commits every dirty page and inode
// of one filesystem in a single call: the broker-wide commit round (storage/group-commit.ts) makes all
// the acks=all appends of a log dir durable with one syncfs instead of one fdatasync per partition file.
// The async form runs on the libuv pool (napi async work), so the event loop never waits for the disk.
#ifndef __linux__
#error "kafkite's storage addon uses Linux syncfs(2); other platforms use per-file fdatasync"
#endif

#include <napi.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace {

std::string errnoName(int e) {
  switch (e) {
    case EBADF: return "EBADF";
    case EIO: return "EIO";
    case ENOSPC: return "ENOSPC";
    case EDQUOT: return "EDQUOT";
    case ENOENT: return "ENOENT";
    case ENOTDIR: return "ENOTDIR";
    case EACCES: return "EACCES";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case EROFS: return "EROFS";
    case ENOSYS: return "ENOSYS";
    default: return "E" + std::to_string(e);
  }
}

// An Error shaped like Node's fs errors: message "<CODE>: <strerror>, syncfs", code, errno (negative), syscall.
Napi::Error syncfsError(Napi::Env env, int e) {
  std::string code = errnoName(e);
  Napi::Error err = Napi::Error::New(env, code + ": " + std::strerror(e) + ", syncfs");
  err.Set("code", code);
  err.Set("errno", Napi::Number::New(env, -e));
  err.Set("syscall", "syncfs");
  return err;
}

// syncfs of the filesystem holding `fd`; returns 0 or an errno. Linux ≥ 5.8 reports writeback errors
// of the filesystem seen since `fd` was opened (errseq), so callers keep one long-lived fd per log dir.
int doSyncfs(int fd) {
  for (;;) {
    if (syncfs(fd) == 0) return 0;
    if (errno != EINTR) return errno;
  }
}

// The fd is dup()ed on the JS thread: if JS closes its fd meanwhile, the number may name another file.
class SyncfsWorker : public Napi::AsyncWorker {
 public:
  SyncfsWorker(Napi::Function callback, int fd) : Napi::AsyncWorker(callback, "kafkite.syncfs"), fd_(dup(fd)) {
    if (fd_ < 0) error_ = errno;
  }

  ~SyncfsWorker() override {
    if (fd_ >= 0) close(fd_);
  }

 protected:
  void Execute() override {
    if (error_ == 0) error_ = doSyncfs(fd_);
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (error_ == 0) {
      Callback().Call({env.Null()});
      return;
    }
    Callback().Call({syncfsError(env, error_).Value()});
  }

 private:
  const int fd_;
  int error_ = 0;
};

bool isFd(const Napi::Value& v) {
  if (!v.IsNumber()) return false;
  double d = v.As<Napi::Number>().DoubleValue();
  return d >= 0 && d <= 2147483647.0 && d == static_cast<double>(static_cast<int>(d));
}

// syncfs(fd, callback(err)): on the libuv pool.
Napi::Value Syncfs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 2 || !isFd(info[0]) || !info[1].IsFunction()) {
    Napi::TypeError::New(env, "syncfs(fd, callback)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  (new SyncfsWorker(info[1].As<Napi::Function>(), info[0].As<Napi::Number>().Int32Value()))->Queue();
  return env.Undefined();
}

// syncfsSync(path): opens `path` (any file or directory of the filesystem), syncfs, closes; throws like fs.*Sync.
Napi::Value SyncfsSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "syncfsSync(path)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string path = info[0].As<Napi::String>().Utf8Value();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    Napi::Error err = syncfsError(env, errno);
    err.Set("path", path);
    err.ThrowAsJavaScriptException();
    return env.Undefined();
  }
  int e = doSyncfs(fd);
  close(fd);
  if (e != 0) {
    Napi::Error err = syncfsError(env, e);
    err.Set("path", path);
    err.ThrowAsJavaScriptException();
  }
  return env.Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("syncfs", Napi::Function::New(env, Syncfs, "syncfs"));
  exports.Set("syncfsSync", Napi::Function::New(env, SyncfsSync, "syncfsSync"));
  return exports;
}

}  // namespace

NODE_API_MODULE(kafkite_storage, Init)
