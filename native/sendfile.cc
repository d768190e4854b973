// sendfile(2) from a segment file to a client socket, off the JS thread (napi async work on the
// libuv pool). Fetch record data goes kernel-to-kernel: no copy into JS memory, no read() + write().
#ifndef __linux__
#error "kafkite's sendfile addon uses Linux sendfile(2); other platforms use the copying fallback"
#endif

#include <napi.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <poll.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// A peer that accepts nothing for this long is given up on (the connection is then closed).
constexpr int kStallTimeoutMs = 30000;
// While stalled we wake up this often to notice that JS closed the socket (see socketClosedByJs).
constexpr int kPollSliceMs = 200;
// Linux transfers at most this much per sendfile(2) call.
constexpr size_t kMaxChunk = 0x7ffff000;
// Our own errno-like code for a file that ends before the slice does (no POSIX errno fits).
constexpr int kShortFile = -1;

// The fds are dup()ed when the call is made, on the JS thread: if JS closes the socket (or the
// storage layer the segment) mid-transfer, the numbers could be reused by another open(), and we
// must never write a segment into someone else's connection.
class SendfileWorker : public Napi::AsyncWorker {
 public:
  SendfileWorker(Napi::Function callback, int socketFd, int fileFd, int64_t position, int64_t length)
      : Napi::AsyncWorker(callback, "kafkite.sendfile"),
        jsSocketFd_(socketFd),
        socketFd_(dup(socketFd)),
        fileFd_(dup(fileFd)),
        position_(position),
        remaining_(static_cast<size_t>(length)) {
    if (socketFd_ < 0 || fileFd_ < 0) error_ = errno;
  }

  ~SendfileWorker() override {
    if (socketFd_ >= 0) close(socketFd_);
    if (fileFd_ >= 0) close(fileFd_);
  }

 protected:
  void Execute() override {
    if (error_ != 0) return;
    struct stat st;
    if (fstat(socketFd_, &st) == 0) socketInode_ = st.st_ino;
    int stalledMs = 0;
    while (remaining_ > 0) {
      ssize_t n = sendfile(socketFd_, fileFd_, &position_, remaining_ < kMaxChunk ? remaining_ : kMaxChunk);
      if (n > 0) {
        sent_ += static_cast<size_t>(n);
        remaining_ -= static_cast<size_t>(n);
        stalledMs = 0;
        continue;
      }
      if (n == 0) {
        error_ = kShortFile;
        return;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN) {
        error_ = errno;
        return;
      }
      // The socket is non-blocking (libuv's): wait until the peer has made room.
      struct pollfd pfd = {socketFd_, POLLOUT, 0};
      int ready = poll(&pfd, 1, kPollSliceMs);
      if (ready < 0 && errno != EINTR) {
        error_ = errno;
        return;
      }
      if (ready > 0) continue;  // writable, or POLLERR/POLLHUP which the next sendfile reports
      stalledMs += kPollSliceMs;
      if (socketClosedByJs()) {
        error_ = ECANCELED;
        return;
      }
      if (stalledMs >= kStallTimeoutMs) {
        error_ = ETIMEDOUT;
        return;
      }
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (error_ == 0) {
      Callback().Call({env.Null(), Napi::Number::New(env, static_cast<double>(sent_))});
      return;
    }
    std::string code = error_ == kShortFile ? "EOF" : errnoName(error_);
    std::string message = error_ == kShortFile ? "file ended before the slice was sent" : std::strerror(error_);
    Napi::Error err = Napi::Error::New(env, "sendfile: " + message + " (" + code + ")");
    err.Set("code", code);
    err.Set("syscall", "sendfile");
    err.Set("bytesSent", Napi::Number::New(env, static_cast<double>(sent_)));
    Callback().Call({err.Value(), Napi::Number::New(env, static_cast<double>(sent_))});
  }

 private:
  // Our dup keeps the connection open even after JS destroyed its socket, so a stalled peer would
  // hold a pool thread until the timeout. JS's fd number is gone (or reused by another file) then.
  bool socketClosedByJs() const {
    struct stat st;
    return fstat(jsSocketFd_, &st) != 0 || st.st_ino != socketInode_;
  }

  static std::string errnoName(int e) {
    switch (e) {
      case EPIPE: return "EPIPE";
      case ECONNRESET: return "ECONNRESET";
      case EBADF: return "EBADF";
      case ETIMEDOUT: return "ETIMEDOUT";
      case ECANCELED: return "ECANCELED";
      case ENOTSOCK: return "ENOTSOCK";
      case EINVAL: return "EINVAL";
      case EIO: return "EIO";
      case ENOMEM: return "ENOMEM";
      case EMFILE: return "EMFILE";
      default: return "E" + std::to_string(e);
    }
  }

  const int jsSocketFd_;
  const int socketFd_;
  const int fileFd_;
  off_t position_;
  size_t remaining_;
  size_t sent_ = 0;
  ino_t socketInode_ = 0;
  int error_ = 0;
};

bool isNonNegativeInteger(const Napi::Value& v) {
  if (!v.IsNumber()) return false;
  double d = v.As<Napi::Number>().DoubleValue();
  return d >= 0 && d <= 9007199254740991.0 && d == static_cast<double>(static_cast<int64_t>(d));
}

// sendfile(socketFd, fileFd, position, length, callback(err, bytesSent))
Napi::Value Sendfile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 5 || !info[4].IsFunction()) {
    Napi::TypeError::New(env, "sendfile(socketFd, fileFd, position, length, callback)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  for (size_t i = 0; i < 4; i++) {
    if (!isNonNegativeInteger(info[i])) {
      Napi::TypeError::New(env, "sendfile: fds, position and length must be non-negative integers")
          .ThrowAsJavaScriptException();
      return env.Undefined();
    }
  }
  auto* worker = new SendfileWorker(info[4].As<Napi::Function>(), info[0].As<Napi::Number>().Int32Value(),
                                    info[1].As<Napi::Number>().Int32Value(), info[2].As<Napi::Number>().Int64Value(),
                                    info[3].As<Napi::Number>().Int64Value());
  worker->Queue();
  return env.Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("sendfile", Napi::Function::New(env, Sendfile, "sendfile"));
  return exports;
}

}  // namespace

NODE_API_MODULE(kafkite_sendfile, Init)
