// Sends one batch of response chunks — in-memory buffers and segment-file ranges — to a client
// socket, off the JS thread (napi async work on the libuv pool). File ranges go with sendfile(2),
// kernel to kernel: no copy into JS memory. One batch is one trip to the pool however many
// partitions a Fetch response has; the buffers between ranges go with sendmsg(MSG_MORE) so a
// partition header shares a TCP segment with its records.
#ifndef __linux__
#error "kafkite's sendfile addon uses Linux sendfile(2); other platforms use the copying fallback"
#endif

#include <napi.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <poll.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

// A peer that accepts nothing for this long is given up on (the connection is then closed).
constexpr int kStallTimeoutMs = 30000;
// While stalled we wake up this often to notice that JS closed the socket (see socketClosedByJs).
constexpr int kPollSliceMs = 200;
// Linux transfers at most this much per sendfile(2) call.
constexpr size_t kMaxSendfile = 0x7ffff000;
// Linux's UIO_MAXIOV: iovecs per sendmsg(2).
constexpr size_t kMaxIov = 1024;
// Our own errno-like code for a file that ends before its range does (no POSIX errno fits).
constexpr int kShortFile = -1;

struct Chunk {
  const char* data;  // null for a file range
  size_t length;
  int fileFd;        // our dup of the range's file
  off_t position;
};

// The fds are dup()ed when the call is made, on the JS thread: if JS closes the socket (or the
// storage layer a segment) mid-transfer, the numbers could be reused by another open(), and we
// must never write a segment into someone else's connection.
class SendWorker : public Napi::AsyncWorker {
 public:
  SendWorker(Napi::Function callback, int socketFd)
      : Napi::AsyncWorker(callback, "kafkite.sendChunks"), jsSocketFd_(socketFd), socketFd_(dup(socketFd)) {
    if (socketFd_ < 0) error_ = errno;
  }

  ~SendWorker() override {
    if (socketFd_ >= 0) close(socketFd_);
    for (auto& fds : fileFds_) close(fds.second);
  }

  void AddBuffer(Napi::Buffer<char> buffer) {
    if (buffer.Length() == 0) return;
    chunks_.push_back({buffer.Data(), buffer.Length(), -1, 0});
    buffers_.push_back(Napi::Persistent(buffer));  // keeps the bytes alive until we are done
  }

  void AddFileRange(int fileFd, int64_t position, int64_t length) {
    if (length == 0 || error_ != 0) return;
    int ours = dupOf(fileFd);
    if (ours < 0) {
      error_ = errno;
      return;
    }
    chunks_.push_back({nullptr, static_cast<size_t>(length), ours, static_cast<off_t>(position)});
  }

 protected:
  void Execute() override {
    if (error_ != 0) return;
    struct stat st;
    if (fstat(socketFd_, &st) == 0) socketInode_ = st.st_ino;
    size_t i = 0;
    while (i < chunks_.size() && error_ == 0) {
      if (chunks_[i].data == nullptr) {
        sendFileRange(chunks_[i++]);
        continue;
      }
      std::vector<struct iovec> iov;
      while (i < chunks_.size() && chunks_[i].data != nullptr && iov.size() < kMaxIov) {
        iov.push_back({const_cast<char*>(chunks_[i].data), chunks_[i].length});
        i++;
      }
      sendBuffers(iov, i < chunks_.size());
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::Number sent = Napi::Number::New(env, static_cast<double>(sent_));
    if (error_ == 0) {
      Callback().Call({env.Null(), sent});
      return;
    }
    std::string code = error_ == kShortFile ? "EOF" : errnoName(error_);
    std::string message = error_ == kShortFile ? "file ended before the range was sent" : std::strerror(error_);
    Napi::Error err = Napi::Error::New(env, "sendfile: " + message + " (" + code + ")");
    err.Set("code", code);
    err.Set("syscall", "sendfile");
    err.Set("bytesSent", sent);
    Callback().Call({err.Value(), sent});
  }

 private:
  int dupOf(int fileFd) {
    for (auto& fds : fileFds_) {
      if (fds.first == fileFd) return fds.second;
    }
    int ours = dup(fileFd);
    if (ours >= 0) fileFds_.emplace_back(fileFd, ours);
    return ours;
  }

  // `more`: file data follows, so the kernel may hold these bytes back to fill a segment.
  void sendBuffers(std::vector<struct iovec>& iov, bool more) {
    size_t first = 0;
    while (first < iov.size()) {
      struct msghdr msg = {};
      msg.msg_iov = &iov[first];
      msg.msg_iovlen = iov.size() - first;
      ssize_t n = sendmsg(socketFd_, &msg, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
      if (n < 0) {
        if (!retryable()) return;
        continue;
      }
      progressed(static_cast<size_t>(n));
      for (size_t left = static_cast<size_t>(n); left > 0;) {
        size_t take = left < iov[first].iov_len ? left : iov[first].iov_len;
        iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + take;
        iov[first].iov_len -= take;
        left -= take;
        if (iov[first].iov_len == 0) first++;
      }
    }
  }

  void sendFileRange(Chunk& range) {
    while (range.length > 0) {
      ssize_t n = sendfile(socketFd_, range.fileFd, &range.position, range.length < kMaxSendfile ? range.length : kMaxSendfile);
      if (n == 0) {
        error_ = kShortFile;
        return;
      }
      if (n < 0) {
        if (!retryable()) return;
        continue;
      }
      progressed(static_cast<size_t>(n));
      range.length -= static_cast<size_t>(n);
    }
  }

  void progressed(size_t n) {
    sent_ += n;
    stalledMs_ = 0;
  }

  // After a failed send: true to try again (interrupted, or the socket — non-blocking, libuv's —
  // has room again), false with error_ set.
  bool retryable() {
    if (errno == EINTR) return true;
    if (errno != EAGAIN) {
      error_ = errno;
      return false;
    }
    for (;;) {
      struct pollfd pfd = {socketFd_, POLLOUT, 0};
      int ready = poll(&pfd, 1, kPollSliceMs);
      if (ready > 0) return true;  // writable, or POLLERR/POLLHUP which the next send reports
      if (ready < 0 && errno != EINTR) {
        error_ = errno;
        return false;
      }
      if (ready == 0) stalledMs_ += kPollSliceMs;
      if (socketClosedByJs()) {
        error_ = ECANCELED;
        return false;
      }
      if (stalledMs_ >= kStallTimeoutMs) {
        error_ = ETIMEDOUT;
        return false;
      }
    }
  }

  // Our dup keeps the connection open even after JS destroyed its socket, so a stalled peer would
  // hold a pool thread until the timeout. JS's fd number is gone then (or names another file).
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
  std::vector<std::pair<int, int>> fileFds_;  // (caller's fd, our dup)
  std::vector<Chunk> chunks_;
  std::vector<Napi::Reference<Napi::Buffer<char>>> buffers_;
  ino_t socketInode_ = 0;
  size_t sent_ = 0;
  int stalledMs_ = 0;
  int error_ = 0;
};

bool isNonNegativeInteger(const Napi::Value& v) {
  if (!v.IsNumber()) return false;
  double d = v.As<Napi::Number>().DoubleValue();
  return d >= 0 && d <= 9007199254740991.0 && d == static_cast<double>(static_cast<int64_t>(d));
}

Napi::Value typeError(Napi::Env env, const char* message) {
  Napi::TypeError::New(env, message).ThrowAsJavaScriptException();
  return env.Undefined();
}

// sendChunks(socketFd, chunks: Array<Buffer | {fd, position, length}>, callback(err, bytesSent))
Napi::Value SendChunks(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !isNonNegativeInteger(info[0]) || !info[1].IsArray() || !info[2].IsFunction()) {
    return typeError(env, "sendChunks(socketFd, chunks, callback)");
  }
  Napi::Array chunks = info[1].As<Napi::Array>();
  // Validate everything before dup()ing anything.
  for (uint32_t i = 0; i < chunks.Length(); i++) {
    Napi::Value chunk = chunks[i];
    if (chunk.IsBuffer()) continue;
    if (!chunk.IsObject()) return typeError(env, "sendChunks: a chunk is neither a Buffer nor a file range");
    Napi::Object range = chunk.As<Napi::Object>();
    if (!isNonNegativeInteger(range.Get("fd")) || !isNonNegativeInteger(range.Get("position")) ||
        !isNonNegativeInteger(range.Get("length"))) {
      return typeError(env, "sendChunks: a file range needs non-negative integer fd, position and length");
    }
  }
  auto* worker = new SendWorker(info[2].As<Napi::Function>(), info[0].As<Napi::Number>().Int32Value());
  for (uint32_t i = 0; i < chunks.Length(); i++) {
    Napi::Value chunk = chunks[i];
    if (chunk.IsBuffer()) {
      worker->AddBuffer(chunk.As<Napi::Buffer<char>>());
      continue;
    }
    Napi::Object range = chunk.As<Napi::Object>();
    worker->AddFileRange(range.Get("fd").As<Napi::Number>().Int32Value(), range.Get("position").As<Napi::Number>().Int64Value(),
                         range.Get("length").As<Napi::Number>().Int64Value());
  }
  worker->Queue();
  return env.Undefined();
}

// raiseOpenFileLimit() -> {soft, hard, error?}: sets RLIMIT_NOFILE's soft limit to its hard limit (as
// the JVM does for Kafka with -XX:+MaxFDLimit) and returns the limits now in force. Node has no
// setrlimit of its own. RLIM_INFINITY reads as -1.
Napi::Value RaiseOpenFileLimit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object result = Napi::Object::New(env);
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    result.Set("error", Napi::String::New(env, std::strerror(errno)));
    return result;
  }
  if (limit.rlim_cur != limit.rlim_max) {
    struct rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      limit = raised;
    } else {
      result.Set("error", Napi::String::New(env, std::strerror(errno)));
    }
  }
  auto asNumber = [&](rlim_t v) { return Napi::Number::New(env, v == RLIM_INFINITY ? -1.0 : static_cast<double>(v)); };
  result.Set("soft", asNumber(limit.rlim_cur));
  result.Set("hard", asNumber(limit.rlim_max));
  return result;
}

// quickAck(fd) -> boolean: sets TCP_QUICKACK on a TCP socket, which acknowledges what was received at
// once instead of with the response. Called when a response will wait (an acks=all produce waiting for
// its fdatasync, a fetch waiting for data): a client with Nagle's algorithm on (librdkafka's default
// before 2.10, socket.nagle.disable=false) holds its next small request until the previous one is
// acknowledged, so a delayed ACK would delay every request behind it by the flush. Not permanent in
// Linux, hence once per waiting request. False when the fd is not a TCP socket (or not Linux).
Napi::Value QuickAck(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !isNonNegativeInteger(info[0])) return typeError(env, "quickAck(fd)");
#ifdef TCP_QUICKACK
  int one = 1;
  return Napi::Boolean::New(env, setsockopt(info[0].As<Napi::Number>().Int32Value(), IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one) == 0);
#else
  return Napi::Boolean::New(env, false);
#endif
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("quickAck", Napi::Function::New(env, QuickAck, "quickAck"));
  exports.Set("sendChunks", Napi::Function::New(env, SendChunks, "sendChunks"));
  exports.Set("raiseOpenFileLimit", Napi::Function::New(env, RaiseOpenFileLimit, "raiseOpenFileLimit"));
  return exports;
}

}  // namespace

NODE_API_MODULE(kafkite_sendfile, Init)
