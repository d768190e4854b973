// franz-go: kgo for producing, consuming (classic and KIP-848 groups) and transactions, kadm for topics.
package main

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var franzCodecs = map[string]kgo.CompressionCodec{
	"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
	"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
}

var franz = scenarios{
	"produce": func(bootstrap string, a []string) (map[string]any, error) {
		cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ProducerBatchCompression(franzCodecs[a[1]]),
			kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(20e6))
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		rs := make([]*kgo.Record, records)
		for i := range rs {
			rs[i] = &kgo.Record{Topic: a[0], Partition: 0, Key: key(i), Value: value(i), Headers: []kgo.RecordHeader{{Key: "n", Value: []byte(fmt.Sprint(i))}}}
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		results := cl.ProduceSync(ctx, rs...)
		if err := results.FirstErr(); err != nil {
			return nil, err
		}
		offsets := make([]int64, len(results))
		for i, r := range results {
			offsets[i] = r.Record.Offset
		}
		return map[string]any{"offsets": offsets}, nil
	},

	"consume": func(bootstrap string, a []string) (map[string]any, error) {
		opts := []kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(a[0]), kgo.ConsumerGroup(a[1]),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit()}
		if a[2] == "consumer" {
			// KIP-848: the broker assigns; franz-go needs a balancer the server has (range).
			opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		rs, err := franzPoll(ctx, cl, records)
		if err != nil {
			return nil, err
		}
		if err := cl.CommitUncommittedOffsets(ctx); err != nil {
			return nil, err
		}
		return consumed(rs), nil
	},

	"transact": func(bootstrap string, a []string) (map[string]any, error) {
		cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.TransactionalID(a[1]), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		for _, outcome := range []string{"committed", "aborted"} {
			if err := cl.BeginTransaction(); err != nil {
				return nil, err
			}
			for _, v := range transactionValues(outcome) {
				if err := cl.ProduceSync(ctx, &kgo.Record{Topic: a[0], Partition: 0, Value: v}).FirstErr(); err != nil {
					return nil, err
				}
			}
			if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(outcome == "committed")); err != nil {
				return nil, err
			}
		}
		return map[string]any{}, nil
	},

	"read-committed": func(bootstrap string, a []string) (map[string]any, error) {
		cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{a[0]: {0: kgo.NewOffset().AtStart()}}))
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		rs, err := franzPoll(ctx, cl, txnRecords)
		if err != nil {
			return nil, err
		}
		// Past the committed ones, a grace period in which aborted records would show up.
		grace, cancelGrace := context.WithTimeout(ctx, graceAfterCommitted)
		defer cancelGrace()
		more, _ := franzPoll(grace, cl, 1)
		return values(append(rs, more...)), nil
	},

	"create-topic": func(bootstrap string, a []string) (map[string]any, error) {
		return withFranzAdmin(bootstrap, func(ctx context.Context, adm *kadm.Client) (map[string]any, error) {
			if _, err := adm.CreateTopic(ctx, 3, 1, nil, a[0]); err != nil {
				return nil, err
			}
			described, err := adm.ListTopics(ctx, a[0])
			if err == nil {
				err = described.Error()
			}
			if err != nil {
				return nil, err
			}
			return map[string]any{"partitions": len(described[a[0]].Partitions)}, nil
		})
	},

	"delete-topic": func(bootstrap string, a []string) (map[string]any, error) {
		return withFranzAdmin(bootstrap, func(ctx context.Context, adm *kadm.Client) (map[string]any, error) {
			res, err := adm.DeleteTopic(ctx, a[0])
			if err == nil {
				err = res.Err
			}
			return map[string]any{}, err
		})
	},
}

func withFranzAdmin(bootstrap string, f func(context.Context, *kadm.Client) (map[string]any, error)) (map[string]any, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return f(ctx, kadm.NewClient(cl))
}

// franzPoll reads until count records or the context's end.
func franzPoll(ctx context.Context, cl *kgo.Client, count int) ([]record, error) {
	var rs []record
	for len(rs) < count && ctx.Err() == nil {
		fetches := cl.PollFetches(ctx)
		for _, fe := range fetches.Errors() {
			if fe.Err != context.DeadlineExceeded && fe.Err != context.Canceled {
				return rs, fe.Err
			}
		}
		fetches.EachRecord(func(r *kgo.Record) { rs = append(rs, record{r.Offset, r.Key, r.Value}) })
	}
	return rs, nil
}
