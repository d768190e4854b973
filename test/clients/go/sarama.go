// IBM/sarama, configured as the newest Kafka it knows (sarama picks its request versions from that, not only
// from ApiVersions): a sync producer, a classic consumer group (sarama has no KIP-848), transactions, and
// ClusterAdmin for topics.
package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/IBM/sarama"
)

var saramaCodecs = map[string]sarama.CompressionCodec{
	"none": sarama.CompressionNone, "gzip": sarama.CompressionGZIP, "snappy": sarama.CompressionSnappy,
	"lz4": sarama.CompressionLZ4, "zstd": sarama.CompressionZSTD,
}

func saramaConfig() *sarama.Config {
	c := sarama.NewConfig()
	c.Version = sarama.MaxVersion
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.AutoCommit.Enable = false
	return c
}

var saramaScenarios = scenarios{
	"produce": func(bootstrap string, a []string) (map[string]any, error) {
		c := saramaConfig()
		c.Producer.Compression = saramaCodecs[a[1]]
		c.Producer.Flush.Messages = records
		c.Producer.Flush.Frequency = 20 * time.Millisecond
		p, err := sarama.NewSyncProducer([]string{bootstrap}, c)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		msgs := make([]*sarama.ProducerMessage, records)
		for i := range msgs {
			msgs[i] = &sarama.ProducerMessage{Topic: a[0], Partition: 0, Key: sarama.ByteEncoder(key(i)), Value: sarama.ByteEncoder(value(i)),
				Headers: []sarama.RecordHeader{{Key: []byte("n"), Value: []byte(fmt.Sprint(i))}}}
		}
		if err := p.SendMessages(msgs); err != nil {
			return nil, err
		}
		offsets := make([]int64, len(msgs))
		for i, m := range msgs {
			offsets[i] = m.Offset
		}
		return map[string]any{"offsets": offsets}, nil
	},

	"consume": func(bootstrap string, a []string) (map[string]any, error) {
		if a[2] != "classic" {
			return nil, fmt.Errorf("sarama has no %s group protocol", a[2])
		}
		g, err := sarama.NewConsumerGroup([]string{bootstrap}, a[1], saramaConfig())
		if err != nil {
			return nil, err
		}
		defer g.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		h := &saramaHandler{done: cancel}
		if err := g.Consume(ctx, []string{a[0]}, h); err != nil {
			return nil, err
		}
		if h.err != nil {
			return nil, h.err
		}
		return consumed(h.rs), nil
	},

	"transact": func(bootstrap string, a []string) (map[string]any, error) {
		c := saramaConfig()
		c.Producer.Idempotent = true
		c.Producer.Transaction.ID = a[1]
		c.Net.MaxOpenRequests = 1
		p, err := sarama.NewSyncProducer([]string{bootstrap}, c)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		for _, outcome := range []string{"committed", "aborted"} {
			if err := p.BeginTxn(); err != nil {
				return nil, err
			}
			for _, v := range transactionValues(outcome) {
				if _, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: a[0], Partition: 0, Value: sarama.ByteEncoder(v)}); err != nil {
					return nil, err
				}
			}
			end := p.CommitTxn
			if outcome == "aborted" {
				end = p.AbortTxn
			}
			if err := end(); err != nil {
				return nil, err
			}
		}
		return map[string]any{}, nil
	},

	"read-committed": func(bootstrap string, a []string) (map[string]any, error) {
		c := saramaConfig()
		c.Consumer.IsolationLevel = sarama.ReadCommitted
		consumer, err := sarama.NewConsumer([]string{bootstrap}, c)
		if err != nil {
			return nil, err
		}
		defer consumer.Close()
		pc, err := consumer.ConsumePartition(a[0], 0, sarama.OffsetOldest)
		if err != nil {
			return nil, err
		}
		defer pc.Close()
		// Past the committed ones, a grace period in which aborted records would show up.
		var rs []record
		deadline := time.After(timeout)
		var grace <-chan time.Time
		for len(rs) <= txnRecords {
			if len(rs) == txnRecords && grace == nil {
				grace = time.After(graceAfterCommitted)
			}
			select {
			case m := <-pc.Messages():
				rs = append(rs, record{m.Offset, m.Key, m.Value})
			case <-grace:
				return values(rs), nil
			case <-deadline:
				return values(rs), nil
			}
		}
		return values(rs), nil
	},

	"create-topic": func(bootstrap string, a []string) (map[string]any, error) {
		adm, err := sarama.NewClusterAdmin([]string{bootstrap}, saramaConfig())
		if err != nil {
			return nil, err
		}
		defer adm.Close()
		if err := adm.CreateTopic(a[0], &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1}, false); err != nil {
			return nil, err
		}
		described, err := adm.DescribeTopics([]string{a[0]})
		if err != nil {
			return nil, err
		}
		if described[0].Err != sarama.ErrNoError {
			return nil, described[0].Err
		}
		return map[string]any{"partitions": len(described[0].Partitions)}, nil
	},

	"delete-topic": func(bootstrap string, a []string) (map[string]any, error) {
		adm, err := sarama.NewClusterAdmin([]string{bootstrap}, saramaConfig())
		if err != nil {
			return nil, err
		}
		defer adm.Close()
		return map[string]any{}, adm.DeleteTopic(a[0])
	},
}

// saramaHandler reads records until it has them all, marks them, commits, and ends the session.
type saramaHandler struct {
	rs   []record
	err  error
	done func()
}

func (h *saramaHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *saramaHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *saramaHandler) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		h.rs = append(h.rs, record{m.Offset, m.Key, m.Value})
		s.MarkMessage(m, "")
		if len(h.rs) == records {
			s.Commit()
			h.done()
			return nil
		}
	}
	if len(h.rs) < records {
		h.err = errors.New("claim ended before every record arrived")
	}
	return nil
}
