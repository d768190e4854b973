/*
 * librdkafka's in-memory mock cluster (rd_kafka_mock_cluster_new) as a stand-alone peer for the
 * produce benchmarks: the same kcat talks to it and to kafkite, so the ratio measures the broker.
 *
 *   gcc -O2 -o mock-cluster bench/peers/mock-cluster.c -lrdkafka
 *   ./mock-cluster [partitions] [topic...]
 *
 * Creates each named topic with `partitions` partitions (default 4; topics it is asked for later
 * are auto-created with the mock's own default), prints the bootstrap address on one line of
 * stdout, and runs until stdin reaches end of file or SIGTERM/SIGINT arrives.
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

int main(int argc, char **argv) {
  char errstr[512];
  int partitions = argc > 1 ? atoi(argv[1]) : 4;
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  /* The handle only hosts the mock cluster's thread; it never connects anywhere. */
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
  if (!rk) {
    fprintf(stderr, "rd_kafka_new: %s\n", errstr);
    return 1;
  }
  rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, 1);
  if (!mcluster) {
    fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
    return 1;
  }
  for (int i = 2; i < argc; i++) {
    rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mcluster, argv[i], partitions > 0 ? partitions : 4, 1);
    if (err && err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      fprintf(stderr, "rd_kafka_mock_topic_create %s: %s\n", argv[i], rd_kafka_err2str(err));
      return 1;
    }
  }
  printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
  fflush(stdout);

  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal; /* no SA_RESTART: read() below returns EINTR */
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  char buf[256];
  while (!stop) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
    if (n == 0 || (n < 0 && !stop)) break; /* EOF or a read error: the parent is gone */
  }
  rd_kafka_mock_cluster_destroy(mcluster);
  rd_kafka_destroy(rk);
  return 0;
}
