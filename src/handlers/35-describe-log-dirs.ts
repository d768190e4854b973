import { statfsSync } from 'node:fs';
import type { DescribeLogDirsRequest } from '../../protocol/generated/DescribeLogDirsRequest.js';
import type { DescribeLogDirsResponse, DescribeLogDirsTopic } from '../../protocol/generated/DescribeLogDirsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';

function wanted(request: DescribeLogDirsRequest): (p: { topic: string; partition: number }) => boolean {
  if (request.topics === null) return () => true;
  const keys = new Set(request.topics.flatMap((t) => t.partitions.map((p) => `${t.topic}\u0000${p}`)));
  return (p) => keys.has(`${p.topic}\u0000${p.partition}`);
}

export const handler: Handler<DescribeLogDirsRequest, DescribeLogDirsResponse> = {
  apiKey: 35,
  name: 'DescribeLogDirs',
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    // DESCRIBE on the cluster; without it, an empty answer (KafkaApis.handleDescribeLogDirsRequest).
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
    const include = wanted(request);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: ctx.broker.config.logDirs.map((logDir) => {
        // Kafka lists an offline log dir with KAFKA_STORAGE_ERROR and nothing else.
        if (ctx.broker.logManager.offlineLogDirs.has(logDir)) {
          return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, logDir, topics: [], totalBytes: -1, usableBytes: -1, isCordoned: false };
        }
        const byTopic = new Map<string, DescribeLogDirsTopic>();
        // Every partition, loaded or not (an unloaded one by its summary or its files' sizes).
        for (const p of ctx.broker.logManager.partitionSizes(logDir).filter(include)) {
          let topic = byTopic.get(p.topic);
          if (!topic) byTopic.set(p.topic, (topic = { name: p.topic, partitions: [] }));
          topic.partitions.push({ partitionIndex: p.partition, partitionSize: p.size, offsetLag: 0, isFutureKey: false });
        }
        const fs = statfsSync(logDir);
        return {
          errorCode: ErrorCode.NONE,
          logDir,
          topics: [...byTopic.values()],
          totalBytes: fs.blocks * fs.bsize,
          usableBytes: fs.bavail * fs.bsize,
          isCordoned: false, // v5+ (KIP-1066): kafkite has no way to cordon a log dir
        };
      }),
    };
  },
};
