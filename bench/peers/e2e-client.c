/*
 * The librdkafka producer and consumer of the end-to-end latency bench, in C: the same protocol
 * and timestamps as bench/e2e_latency.py, without the interpreter's CPU, which on a 2-core machine
 * competes with the broker and put the bench's tail in the clients rather than in the broker.
 *
 *   gcc -O2 -o e2e-client bench/peers/e2e-client.c -lrdkafka
 *   ./e2e-client consume BOOTSTRAP TOPIC RECORDS WARMUP   -> 'ready', then one JSON line
 *   ./e2e-client produce BOOTSTRAP TOPIC RATE SECONDS RECORD_BYTES ACKS -> one JSON line
 *
 * The producer sends RATE records/s to partition 0 with linger.ms=0, each value starting with its
 * wall-clock send time (ns, big endian). The consumer (its own process, same clock) takes
 * now - stamp as each record is handed to it, after the first WARMUP records.
 */
#include <librdkafka/rdkafka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void set(rd_kafka_conf_t *conf, const char *name, const char *value) {
  char errstr[512];
  if (rd_kafka_conf_set(conf, name, value, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "%s=%s: %s\n", name, value, errstr);
    exit(2);
  }
}

static rd_kafka_t *client(rd_kafka_type_t type, rd_kafka_conf_t *conf) {
  char errstr[512];
  rd_kafka_t *rk = rd_kafka_new(type, conf, errstr, sizeof(errstr));
  if (!rk) {
    fprintf(stderr, "rd_kafka_new: %s\n", errstr);
    exit(1);
  }
  return rk;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The same nearest-rank percentile as e2e_latency.py. */
static double pct(const double *sorted, long n, double p) {
  long i = (long)(n * p + 0.999999) - 1;
  if (i < 0) i = 0;
  if (i > n - 1) i = n - 1;
  return sorted[i];
}

static int consume(const char *bootstrap, const char *topic, long records, long warmup) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "group.id", "kafkite-bench-e2e");
  set(conf, "enable.auto.commit", "false");
  set(conf, "fetch.min.bytes", "1");
  set(conf, "fetch.wait.max.ms", "500");
  rd_kafka_t *rk = client(RD_KAFKA_CONSUMER, conf);
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, topic, 0)->offset = 0;
  rd_kafka_assign(rk, parts);
  rd_kafka_topic_partition_list_destroy(parts);
  rd_kafka_message_t *first = rd_kafka_consumer_poll(rk, 500);
  if (first) rd_kafka_message_destroy(first);
  printf("ready\n");
  fflush(stdout);

  double *latencies = malloc(sizeof(double) * (records > 0 ? records : 1));
  long received = 0, kept = 0;
  int64_t deadline = now_ns(CLOCK_MONOTONIC) + 120 * (int64_t)1000000000;
  while (received < records + warmup && now_ns(CLOCK_MONOTONIC) < deadline) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
    if (!m) continue;
    int64_t now = now_ns(CLOCK_REALTIME);
    if (!m->err && m->len >= 8) {
      received++;
      if (received > warmup && kept < records) {
        const unsigned char *v = m->payload;
        int64_t stamp = 0;
        for (int i = 0; i < 8; i++) stamp = (stamp << 8) | v[i];
        latencies[kept++] = (double)(now - stamp) / 1e6;
      }
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  qsort(latencies, kept, sizeof(double), by_value);
  if (kept == 0) {
    printf("{\"records\": 0, \"p50Ms\": null, \"p99Ms\": null, \"p999Ms\": null, \"maxMs\": null}\n");
  } else {
    printf("{\"records\": %ld, \"p50Ms\": %.3f, \"p99Ms\": %.3f, \"p999Ms\": %.3f, \"maxMs\": %.3f}\n", kept,
           pct(latencies, kept, 0.5), pct(latencies, kept, 0.99), pct(latencies, kept, 0.999), pct(latencies, kept, 1));
  }
  fflush(stdout);
  free(latencies);
  return 0;
}

static int produce(const char *bootstrap, const char *topic, double rate, double seconds, int record_bytes, const char *acks) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "acks", acks);
  set(conf, "linger.ms", "0");
  rd_kafka_t *rk = client(RD_KAFKA_PRODUCER, conf);
  if (record_bytes < 8) record_bytes = 8;
  unsigned char *value = calloc(record_bytes, 1);
  memset(value + 8, 'x', record_bytes - 8);
  long total = (long)(rate * seconds), sent = 0;
  int64_t start = now_ns(CLOCK_MONOTONIC);
  while (sent < total) {
    long due = (long)((now_ns(CLOCK_MONOTONIC) - start) / 1e9 * rate);
    if (due > total) due = total;
    while (sent < due) {
      int64_t stamp = now_ns(CLOCK_REALTIME);
      for (int i = 7; i >= 0; i--) value[7 - i] = (unsigned char)(stamp >> (8 * i));
      rd_kafka_resp_err_t err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
                                                  RD_KAFKA_V_VALUE(value, record_bytes), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                                  RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        /* The broker is behind: wait for deliveries, as a real producer does. */
        rd_kafka_poll(rk, 1);
        continue;
      }
      if (err) {
        fprintf(stderr, "produce: %s\n", rd_kafka_err2str(err));
        return 1;
      }
      sent++;
    }
    rd_kafka_poll(rk, 0);
    struct timespec pause = {0, 200000};
    nanosleep(&pause, NULL);
  }
  double elapsed = (now_ns(CLOCK_MONOTONIC) - start) / 1e9;
  rd_kafka_flush(rk, 30000);
  int left = rd_kafka_outq_len(rk);
  printf("{\"sent\": %ld, \"seconds\": %.3f, \"recordsPerSec\": %ld, \"undelivered\": %d}\n", sent, elapsed, (long)(sent / elapsed), left);
  fflush(stdout);
  rd_kafka_destroy(rk);
  free(value);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 6 && strcmp(argv[1], "consume") == 0) return consume(argv[2], argv[3], atol(argv[4]), atol(argv[5]));
  if (argc >= 8 && strcmp(argv[1], "produce") == 0) return produce(argv[2], argv[3], atof(argv[4]), atof(argv[5]), atoi(argv[6]), argv[7]);
  fprintf(stderr, "usage: e2e-client consume BOOTSTRAP TOPIC RECORDS WARMUP | produce BOOTSTRAP TOPIC RATE SECONDS RECORD_BYTES ACKS\n");
  return 2;
}
