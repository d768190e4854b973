/*
 * The kernel's own cost of sending a page-cached file to a loopback TCP socket, without Node or libuv:
 * sendfile(2) against pread(2) + write(2), 1 MiB per call, to a forked reader that discards what it
 * gets. Prints this process's CPU seconds (user + system, the reader's excluded) per GB sent, as JSON.
 * bench/limits.ts runs it: it bounds what kafkite's zero-copy path can save over its copying one here.
 *
 *   sendfile-loop <file> sendfile|copy
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static double cpu_seconds(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

static void fail(const char *what) {
  perror(what);
  exit(1);
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[2], "sendfile") != 0 && strcmp(argv[2], "copy") != 0)) {
    fprintf(stderr, "usage: %s <file> sendfile|copy\n", argv[0]);
    return 2;
  }
  int zero_copy = strcmp(argv[2], "sendfile") == 0;
  int file = open(argv[1], O_RDONLY);
  if (file < 0) fail("open");
  off_t size = lseek(file, 0, SEEK_END);

  int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t addr_len = sizeof addr;
  if (bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 1) < 0) fail("listen");
  getsockname(listener, (struct sockaddr *)&addr, &addr_len);

  pid_t reader = fork();
  if (reader < 0) fail("fork");
  if (reader == 0) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(s, (struct sockaddr *)&addr, sizeof addr) < 0) fail("connect");
    char *sink = malloc(CHUNK);
    while (read(s, sink, CHUNK) > 0) {
    }
    _exit(0);
  }
  int out = accept(listener, NULL, NULL);
  if (out < 0) fail("accept");
  int one = 1;
  setsockopt(out, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  char *buffer = malloc(CHUNK);
  double start = cpu_seconds();
  off_t offset = 0;
  while (offset < size) {
    size_t want = size - offset < CHUNK ? (size_t)(size - offset) : CHUNK;
    if (zero_copy) {
      if (sendfile(out, file, &offset, want) <= 0) fail("sendfile");
      continue;
    }
    ssize_t got = pread(file, buffer, want, offset);
    if (got <= 0) fail("pread");
    for (ssize_t done = 0; done < got;) {
      ssize_t n = write(out, buffer + done, got - done);
      if (n <= 0) fail("write");
      done += n;
    }
    offset += got;
  }
  double used = cpu_seconds() - start;
  close(out);
  waitpid(reader, NULL, 0);
  printf("{\"sender\":\"%s\",\"bytes\":%lld,\"cpuSecondsPerGb\":%.4f}\n", argv[2], (long long)size, used / (size / 1e9));
  return 0;
}
