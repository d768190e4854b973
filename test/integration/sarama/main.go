// sarama 1.22.1 (Debian's golang-github-shopify-sarama-dev) against kafkite, driven by sarama.test.ts,
// which checks the disk and what a second client sees afterwards. Built there with GOPATH=/usr/share/gocode.
//
//	sarama <bootstrap> <kafka version> <codec> <topic> [group]
//
// Produces 100 keyed records to partition 0 with the codec, then reads them back: in the group, committing
// its offsets, when one is named, else with a partition consumer. Prints one JSON object on stdout.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/Shopify/sarama"
)

const records = 100

type result struct {
	Offsets  []int64 `json:"offsets,omitempty"`
	Consumed int     `json:"consumed"`
	Matching int     `json:"matching"`
	Error    string  `json:"error,omitempty"`
}

var codecs = map[string]sarama.CompressionCodec{
	"none": sarama.CompressionNone, "gzip": sarama.CompressionGZIP, "snappy": sarama.CompressionSnappy,
	"lz4": sarama.CompressionLZ4, "zstd": sarama.CompressionZSTD,
}

func value(i int64) string { return fmt.Sprintf("value %d the quick brown fox jumps over the lazy dog", i) }

func matches(m *sarama.ConsumerMessage) bool {
	return string(m.Key) == fmt.Sprint(m.Offset) && string(m.Value) == value(m.Offset)
}

// groupHandler reads until it has every record, marking each one (committed by the offset manager).
type groupHandler struct {
	res  *result
	done chan struct{}
}

func (h *groupHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *groupHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h *groupHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		s.MarkMessage(m, "")
		h.res.Consumed++
		if matches(m) {
			h.res.Matching++
		}
		if h.res.Consumed == records {
			close(h.done)
		}
	}
	return nil
}

func run(bootstrap []string, cfg *sarama.Config, topic, group string) (res result, err error) {
	producer, err := sarama.NewSyncProducer(bootstrap, cfg)
	if err != nil {
		return res, err
	}
	msgs := make([]*sarama.ProducerMessage, records)
	for i := range msgs {
		msgs[i] = &sarama.ProducerMessage{Topic: topic, Partition: 0, Key: sarama.StringEncoder(fmt.Sprint(i)), Value: sarama.StringEncoder(value(int64(i)))}
	}
	err = producer.SendMessages(msgs)
	producer.Close()
	if errs, ok := err.(sarama.ProducerErrors); ok && len(errs) > 0 {
		return res, errs[0].Err
	} else if err != nil {
		return res, err
	}
	for _, m := range msgs {
		res.Offsets = append(res.Offsets, m.Offset)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if group == "" {
		consumer, err := sarama.NewConsumer(bootstrap, cfg)
		if err != nil {
			return res, err
		}
		defer consumer.Close()
		pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
		if err != nil {
			return res, err
		}
		defer pc.Close()
		for res.Consumed < records {
			select {
			case m := <-pc.Messages():
				res.Consumed++
				if matches(m) {
					res.Matching++
				}
			case <-ctx.Done():
				return res, ctx.Err()
			}
		}
		return res, nil
	}
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	consumerGroup, err := sarama.NewConsumerGroup(bootstrap, group, cfg)
	if err != nil {
		return res, err
	}
	handler := &groupHandler{res: &res, done: make(chan struct{})}
	consumed := make(chan error, 1)
	go func() {
		for ctx.Err() == nil {
			if err := consumerGroup.Consume(ctx, []string{topic}, handler); err != nil {
				consumed <- err
				return
			}
		}
		consumed <- nil
	}()
	select {
	case <-handler.done:
	case err = <-consumed:
	case <-ctx.Done():
		err = ctx.Err()
	}
	cancel()
	// Closing the group commits the marked offsets.
	if closeErr := consumerGroup.Close(); err == nil {
		err = closeErr
	}
	return res, err
}

func main() {
	version, err := sarama.ParseKafkaVersion(os.Args[2])
	if err != nil {
		panic(err)
	}
	cfg := sarama.NewConfig()
	cfg.Version = version
	cfg.ClientID = "sarama-test"
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Compression = codecs[os.Args[3]]
	cfg.Producer.Retry.Max = 0
	group := ""
	if len(os.Args) > 5 {
		group = os.Args[5]
	}
	res, err := run([]string{os.Args[1]}, cfg, os.Args[4], group)
	if err != nil {
		res.Error = err.Error()
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
}
