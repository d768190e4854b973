// segmentio/kafka-go: a Writer, a Reader in a classic group (kafka-go has neither KIP-848 nor transactions),
// and its Client for topics.
package main

import (
	"context"
	"fmt"
	"time"

	kafka "github.com/segmentio/kafka-go"
)

var kafkaGoCodecs = map[string]kafka.Compression{
	"none": 0, "gzip": kafka.Gzip, "snappy": kafka.Snappy, "lz4": kafka.Lz4, "zstd": kafka.Zstd,
}

var kafkaGo = scenarios{
	"produce": func(bootstrap string, a []string) (map[string]any, error) {
		var offsets []int64
		w := &kafka.Writer{Addr: kafka.TCP(bootstrap), Topic: a[0], Compression: kafkaGoCodecs[a[1]], RequiredAcks: kafka.RequireAll,
			BatchSize: records, BatchTimeout: 20e6, Balancer: kafka.BalancerFunc(func(kafka.Message, ...int) int { return 0 }),
			Completion: func(ms []kafka.Message, err error) {
				for _, m := range ms {
					if err == nil {
						offsets = append(offsets, m.Offset)
					}
				}
			}}
		msgs := make([]kafka.Message, records)
		for i := range msgs {
			msgs[i] = kafka.Message{Key: key(i), Value: value(i), Headers: []kafka.Header{{Key: "n", Value: []byte(fmt.Sprint(i))}}}
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		return map[string]any{"offsets": offsets}, nil
	},

	"consume": func(bootstrap string, a []string) (map[string]any, error) {
		if a[2] != "classic" {
			return nil, fmt.Errorf("kafka-go has no %s group protocol", a[2])
		}
		r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{bootstrap}, GroupID: a[1], Topic: a[0], StartOffset: kafka.FirstOffset,
			// Close waits for the fetch in flight, which the broker holds up to MaxWait (10 s by default) once the records are read.
			MaxWait: 500 * time.Millisecond})
		defer r.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var rs []record
		var last kafka.Message
		for len(rs) < records {
			m, err := r.FetchMessage(ctx)
			if err != nil {
				return nil, err
			}
			rs = append(rs, record{m.Offset, m.Key, m.Value})
			last = m
		}
		if err := r.CommitMessages(ctx, last); err != nil {
			return nil, err
		}
		return consumed(rs), nil
	},

	"create-topic": func(bootstrap string, a []string) (map[string]any, error) {
		cl := &kafka.Client{Addr: kafka.TCP(bootstrap)}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		created, err := cl.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{Topic: a[0], NumPartitions: 3, ReplicationFactor: 1}}})
		if err != nil {
			return nil, err
		}
		if err := created.Errors[a[0]]; err != nil {
			return nil, err
		}
		md, err := cl.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{a[0]}})
		if err != nil {
			return nil, err
		}
		if md.Topics[0].Error != nil {
			return nil, md.Topics[0].Error
		}
		return map[string]any{"partitions": len(md.Topics[0].Partitions)}, nil
	},

	"delete-topic": func(bootstrap string, a []string) (map[string]any, error) {
		cl := &kafka.Client{Addr: kafka.TCP(bootstrap)}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		deleted, err := cl.DeleteTopics(ctx, &kafka.DeleteTopicsRequest{Topics: []string{a[0]}})
		if err == nil {
			err = deleted.Errors[a[0]]
		}
		return map[string]any{}, err
	},
}
