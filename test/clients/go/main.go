// The current Go clients against kafkite: franz-go (kgo, kadm), IBM/sarama and segmentio/kafka-go, driven
// by test/integration/clients-go.test.ts. One binary for the three:
//
//	clients <franz|sarama|kafka-go> <bootstrap> <scenario> [args...]
//
// prints one JSON object on stdout: the scenario's result, or {"error": ...}. The scenarios, their
// arguments and the records written are those of test/helpers/client-matrix.ts, the same for every client
// (and for test/clients/python/common.py).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

const (
	records    = 100
	txnRecords = 10
	timeout    = 30 * time.Second
)

// A compressible value (as test/helpers/disk-batches.ts's compressibleValue), so every codec pays.
func value(i int) []byte {
	return []byte(fmt.Sprintf("record %d ", i) + strings.Repeat("the quick brown fox jumps over the lazy dog, ", 12))
}

func key(i int) []byte { return []byte(fmt.Sprintf("k%d", i)) }

type record struct {
	offset     int64
	key, value []byte
}

// consumed is the answer of a consume: the offsets read, and how many carried the key and value produced.
func consumed(rs []record) map[string]any {
	offsets := make([]int64, 0, len(rs))
	matching := 0
	for _, r := range rs {
		offsets = append(offsets, r.offset)
		if string(r.key) == string(key(int(r.offset))) && string(r.value) == string(value(int(r.offset))) {
			matching++
		}
	}
	return map[string]any{"offsets": offsets, "matching": matching}
}

// transactionValues are what a transact scenario writes: a committed transaction's, then an aborted one's.
func transactionValues(outcome string) [][]byte {
	vs := make([][]byte, txnRecords)
	for i := range vs {
		vs[i] = []byte(fmt.Sprintf("%s-%d", outcome, i))
	}
	return vs
}

type scenarios map[string]func(bootstrap string, args []string) (map[string]any, error)

func main() {
	clients := map[string]scenarios{"franz": franz, "sarama": saramaScenarios, "kafka-go": kafkaGo}
	client, bootstrap, scenario, args := os.Args[1], os.Args[2], os.Args[3], os.Args[4:]
	run, ok := clients[client][scenario]
	var result map[string]any
	var err error
	if !ok {
		err = fmt.Errorf("no scenario %s for %s", scenario, client)
	} else {
		result, err = run(bootstrap, args)
	}
	if err != nil {
		result = map[string]any{"error": err.Error()}
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		os.Exit(1)
	}
}

// graceAfterCommitted is how long a read_committed reader waits for a record past the committed ones: the
// time aborted records would have to show up.
const graceAfterCommitted = 2 * time.Second

func values(rs []record) map[string]any {
	vs := make([]string, len(rs))
	for i, r := range rs {
		vs[i] = string(r.value)
	}
	return map[string]any{"values": vs}
}
