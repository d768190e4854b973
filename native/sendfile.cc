// Sends one batch of response chunks — in-memory buffers and segment-file ranges — to a client
// socket. File ranges go with sendfile(2), kernel to kernel: no copy into JS memory; the buffers
// between ranges go with sendmsg(MSG_MORE) so a partition header shares a TCP segment with its records.
//
// Two entry points share one sender:
// - sendChunksNow, on the JS thread: sends what the socket takes right now (the socket is libuv's,
//   non-blocking, so a full socket returns EAGAIN rather than blocking) and only ranges wholly in the
//   page cache (cachestat(2)), so a slow reader or a disk read never blocks the event loop. Most fetches
//   of recent data finish here with no thread-pool round trip, no dup(2) and no completion callback.
// - sendChunks, napi async work on the libuv pool: sends the rest, waiting in poll(2) for a slow reader
//   and reading cold ranges from disk. One batch is one trip to the pool however many partitions it has.
#ifndef __linux__
#error "kafkite's sendfile addon uses Linux sendfile(2); other platforms use the copying fallback"
#endif

#include <napi.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
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
#include <sys/syscall.h>
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

// cachestat(2) (Linux 6.5): how much of a file range is in the page cache. glibc 2.36 has neither the
// wrapper nor the structs; the syscall number is the same on every architecture.
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
struct CachestatRange {
  uint64_t off;
  uint64_t len;
};
struct Cachestat {
  uint64_t nrCache, nrDirty, nrWriteback, nrEvicted, nrRecentlyEvicted;
};
// Set once the kernel (or a seccomp filter, as in Docker's default profile) refuses cachestat: every
// range then counts as uncached and goes to the pool, as before this fast path existed.
std::atomic<bool> cachestatMissing{false};

// True when every page of the range is in the page cache, so sendfile will not wait for the disk.
bool inPageCache(int fd, off_t position, size_t length) {
  if (cachestatMissing.load(std::memory_order_relaxed)) return false;
  CachestatRange range = {static_cast<uint64_t>(position), static_cast<uint64_t>(length)};
  Cachestat cs = {};
  if (syscall(__NR_cachestat, fd, &range, &cs, 0) != 0) {
    if (errno == ENOSYS || errno == EPERM) cachestatMissing.store(true, std::memory_order_relaxed);
    return false;
  }
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t first = static_cast<uint64_t>(position) / page;
  uint64_t last = (static_cast<uint64_t>(position) + length - 1) / page;
  return cs.nrCache >= last - first + 1;
}

struct Chunk {
  const char* data;  // null for a file range
  size_t length;
  int fileFd;
  off_t position;
};

// What a send does when the socket is full or a range would have to be read from disk.
enum class Mode {
  kBlocking,     // pool thread: poll(2) until the socket has room; read from disk as needed
  kNonBlocking,  // JS thread: stop there, leaving the rest to the pool
};

// Sends chunks in order to a non-blocking socket; `sent` bytes went out. In kNonBlocking mode `stopped`
// says that it stopped early (socket full, range not in the page cache) without error.
class ChunkSender {
 public:
  ChunkSender(int socketFd, Mode mode, size_t maxFileBytes = SIZE_MAX) : socketFd_(socketFd), mode_(mode), fileBudget_(maxFileBytes) {}

  std::vector<Chunk> chunks;
  size_t sent = 0;
  int error = 0;
  bool stopped = false;

  // Blocking mode only: the fd and inode JS knows the socket by, to notice it was closed meanwhile.
  void watchJsSocket(int jsSocketFd) {
    jsSocketFd_ = jsSocketFd;
    struct stat st;
    if (fstat(socketFd_, &st) == 0) socketInode_ = st.st_ino;
  }

  void run() {
    size_t i = 0;
    while (i < chunks.size() && error == 0 && !stopped) {
      if (chunks[i].data == nullptr) {
        sendFileRange(chunks[i++]);
        continue;
      }
      std::vector<struct iovec> iov;
      while (i < chunks.size() && chunks[i].data != nullptr && iov.size() < kMaxIov) {
        iov.push_back({const_cast<char*>(chunks[i].data), chunks[i].length});
        i++;
      }
      sendBuffers(iov, i < chunks.size());
    }
  }

 private:
  // `more`: file data follows, so the kernel may hold these bytes back to fill a segment.
  void sendBuffers(std::vector<struct iovec>& iov, bool more) {
    size_t first = 0;
    while (first < iov.size()) {
      struct msghdr msg = {};
      msg.msg_iov = &iov[first];
      msg.msg_iovlen = iov.size() - first;
      ssize_t n = sendmsg(socketFd_, &msg, MSG_NOSIGNAL | MSG_DONTWAIT | (more ? MSG_MORE : 0));
      if (n < 0) {
        if (!retryable()) return;
        continue;
      }
      sent += static_cast<size_t>(n);
      stalledMs_ = 0;
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
    if (mode_ == Mode::kNonBlocking && !inPageCache(range.fileFd, range.position, range.length)) {
      stopped = true;
      return;
    }
    while (range.length > 0) {
      size_t want = range.length < kMaxSendfile ? range.length : kMaxSendfile;
      if (want > fileBudget_) want = fileBudget_;
      if (want == 0) {
        stopped = true;
        return;
      }
      ssize_t n = sendfile(socketFd_, range.fileFd, &range.position, want);
      if (n == 0) {
        error = kShortFile;
        return;
      }
      if (n < 0) {
        if (!retryable()) return;
        continue;
      }
      sent += static_cast<size_t>(n);
      stalledMs_ = 0;
      range.length -= static_cast<size_t>(n);
      fileBudget_ -= static_cast<size_t>(n);
    }
  }

  // After a failed send: true to try again (interrupted, or the socket has room again), false with
  // `error` set, or with `stopped` set when a non-blocking send found the socket full.
  bool retryable() {
    if (errno == EINTR) return true;
    if (errno != EAGAIN) {
      error = errno;
      return false;
    }
    if (mode_ == Mode::kNonBlocking) {
      stopped = true;
      return false;
    }
    for (;;) {
      struct pollfd pfd = {socketFd_, POLLOUT, 0};
      int ready = poll(&pfd, 1, kPollSliceMs);
      if (ready > 0) return true;  // writable, or POLLERR/POLLHUP which the next send reports
      if (ready < 0 && errno != EINTR) {
        error = errno;
        return false;
      }
      if (ready == 0) stalledMs_ += kPollSliceMs;
      if (socketClosedByJs()) {
        error = ECANCELED;
        return false;
      }
      if (stalledMs_ >= kStallTimeoutMs) {
        error = ETIMEDOUT;
        return false;
      }
    }
  }

  // The pool's dup keeps the connection open even after JS destroyed its socket, so a stalled peer
  // would hold a pool thread until the timeout. JS's fd number is gone then (or names another file).
  bool socketClosedByJs() const {
    if (jsSocketFd_ < 0) return false;
    struct stat st;
    return fstat(jsSocketFd_, &st) != 0 || st.st_ino != socketInode_;
  }

  const int socketFd_;
  const Mode mode_;
  size_t fileBudget_;  // file bytes this send may still take
  int jsSocketFd_ = -1;
  ino_t socketInode_ = 0;
  int stalledMs_ = 0;
};

std::string errnoName(int e) {
  switch (e) {
    case kShortFile: return "EOF";
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

// The Error a failed send rejects with: errno `code`, `syscall` and `bytesSent`.
Napi::Error sendError(Napi::Env env, int error, size_t sent) {
  std::string code = errnoName(error);
  std::string message = error == kShortFile ? "file ended before the range was sent" : std::strerror(error);
  Napi::Error err = Napi::Error::New(env, "sendfile: " + message + " (" + code + ")");
  err.Set("code", code);
  err.Set("syscall", "sendfile");
  err.Set("bytesSent", Napi::Number::New(env, static_cast<double>(sent)));
  return err;
}

// The fds are dup()ed when the call is made, on the JS thread: if JS closes the socket (or the
// storage layer a segment) mid-transfer, the numbers could be reused by another open(), and we
// must never write a segment into someone else's connection.
class SendWorker : public Napi::AsyncWorker {
 public:
  SendWorker(Napi::Function callback, int socketFd)
      : Napi::AsyncWorker(callback, "kafkite.sendChunks"), jsSocketFd_(socketFd), socketFd_(dup(socketFd)), sender_(socketFd_, Mode::kBlocking) {
    if (socketFd_ < 0) error_ = errno;
  }

  ~SendWorker() override {
    if (socketFd_ >= 0) close(socketFd_);
    for (auto& fds : fileFds_) close(fds.second);
  }

  void AddBuffer(Napi::Buffer<char> buffer) {
    if (buffer.Length() == 0) return;
    sender_.chunks.push_back({buffer.Data(), buffer.Length(), -1, 0});
    buffers_.push_back(Napi::Persistent(buffer));  // keeps the bytes alive until we are done
  }

  void AddFileRange(int fileFd, int64_t position, int64_t length) {
    if (length == 0 || error_ != 0) return;
    int ours = dupOf(fileFd);
    if (ours < 0) {
      error_ = errno;
      return;
    }
    sender_.chunks.push_back({nullptr, static_cast<size_t>(length), ours, static_cast<off_t>(position)});
  }

 protected:
  void Execute() override {
    if (error_ != 0) return;
    sender_.watchJsSocket(jsSocketFd_);
    sender_.run();
    error_ = sender_.error;
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::Number sent = Napi::Number::New(env, static_cast<double>(sender_.sent));
    if (error_ == 0) {
      Callback().Call({env.Null(), sent});
      return;
    }
    Callback().Call({sendError(env, error_, sender_.sent).Value(), sent});
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

  const int jsSocketFd_;
  const int socketFd_;
  ChunkSender sender_;
  std::vector<std::pair<int, int>> fileFds_;  // (caller's fd, our dup)
  std::vector<Napi::Reference<Napi::Buffer<char>>> buffers_;
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

// One element of a chunks array, read once.
struct ParsedChunk {
  Napi::Value buffer;  // empty for a file range
  int fd;
  int64_t position;
  int64_t length;
};

// Reads a chunks array: Buffers and {fd, position, length} ranges of non-negative integers. On a bad
// element it throws a TypeError and returns false, before anything was sent or dup()ed.
bool parseChunks(Napi::Env env, const Napi::Array& chunks, const char* name, std::vector<ParsedChunk>& out) {
  // Key strings made once per call, not per lookup (napi references to strings need Node-API 10).
  Napi::String fdKey = Napi::String::New(env, "fd");
  Napi::String positionKey = Napi::String::New(env, "position");
  Napi::String lengthKey = Napi::String::New(env, "length");
  uint32_t n = chunks.Length();
  out.reserve(n);
  for (uint32_t i = 0; i < n; i++) {
    Napi::Value chunk = chunks[i];
    if (chunk.IsBuffer()) {
      out.push_back({chunk, -1, 0, 0});
      continue;
    }
    if (!chunk.IsObject()) {
      typeError(env, (std::string(name) + ": a chunk is neither a Buffer nor a file range").c_str());
      return false;
    }
    Napi::Object range = chunk.As<Napi::Object>();
    Napi::Value fd = range.Get(fdKey);
    Napi::Value position = range.Get(positionKey);
    Napi::Value length = range.Get(lengthKey);
    if (!isNonNegativeInteger(fd) || !isNonNegativeInteger(position) || !isNonNegativeInteger(length)) {
      typeError(env, (std::string(name) + ": a file range needs non-negative integer fd, position and length").c_str());
      return false;
    }
    out.push_back({Napi::Value(), fd.As<Napi::Number>().Int32Value(), position.As<Napi::Number>().Int64Value(),
                   length.As<Napi::Number>().Int64Value()});
  }
  return true;
}

// sendChunks(socketFd, chunks: Array<Buffer | {fd, position, length}>, callback(err, bytesSent))
Napi::Value SendChunks(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !isNonNegativeInteger(info[0]) || !info[1].IsArray() || !info[2].IsFunction()) {
    return typeError(env, "sendChunks(socketFd, chunks, callback)");
  }
  std::vector<ParsedChunk> chunks;
  if (!parseChunks(env, info[1].As<Napi::Array>(), "sendChunks", chunks)) return env.Undefined();
  auto* worker = new SendWorker(info[2].As<Napi::Function>(), info[0].As<Napi::Number>().Int32Value());
  for (const ParsedChunk& chunk : chunks) {
    if (!chunk.buffer.IsEmpty()) worker->AddBuffer(chunk.buffer.As<Napi::Buffer<char>>());
    else worker->AddFileRange(chunk.fd, chunk.position, chunk.length);
  }
  worker->Queue();
  return env.Undefined();
}

// sendChunksNow(socketFd, chunks, maxFileBytes?) -> bytesSent: sends on the JS thread what goes without
// waiting (see the top of this file), in order, and stops at the first chunk that would wait or once
// maxFileBytes of file data went out (a bound on the time the event loop spends here). Throws sendChunks's
// errors. The fds are used during the call only, so they need no dup.
Napi::Value SendChunksNow(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || info.Length() > 3 || !isNonNegativeInteger(info[0]) || !info[1].IsArray() ||
      (info.Length() == 3 && !isNonNegativeInteger(info[2]))) {
    return typeError(env, "sendChunksNow(socketFd, chunks, maxFileBytes?)");
  }
  size_t maxFileBytes = info.Length() == 3 ? static_cast<size_t>(info[2].As<Napi::Number>().Int64Value()) : SIZE_MAX;
  std::vector<ParsedChunk> chunks;
  if (!parseChunks(env, info[1].As<Napi::Array>(), "sendChunksNow", chunks)) return env.Undefined();
  ChunkSender sender(info[0].As<Napi::Number>().Int32Value(), Mode::kNonBlocking, maxFileBytes);
  sender.chunks.reserve(chunks.size());
  for (const ParsedChunk& chunk : chunks) {
    if (!chunk.buffer.IsEmpty()) {
      Napi::Buffer<char> buffer = chunk.buffer.As<Napi::Buffer<char>>();
      if (buffer.Length() > 0) sender.chunks.push_back({buffer.Data(), buffer.Length(), -1, 0});
    } else if (chunk.length > 0) {
      sender.chunks.push_back({nullptr, static_cast<size_t>(chunk.length), chunk.fd, static_cast<off_t>(chunk.position)});
    }
  }
  sender.run();
  if (sender.error != 0) {
    sendError(env, sender.error, sender.sent).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, static_cast<double>(sender.sent));
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
// Linux, hence once per read whose requests wait (Connection.ackReceived). False when the fd is not a
// TCP socket (or not Linux).
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
  exports.Set("sendChunksNow", Napi::Function::New(env, SendChunksNow, "sendChunksNow"));
  exports.Set("raiseOpenFileLimit", Napi::Function::New(env, RaiseOpenFileLimit, "raiseOpenFileLimit"));
  return exports;
}

}  // namespace

NODE_API_MODULE(kafkite_sendfile, Init)
