import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DescribeLogDirsRequest } from '../../protocol/generated/DescribeLogDirsRequest.js';
import type { DescribeLogDirsResponse, DescribeLogDirsTopic } from '../../protocol/generated/DescribeLogDirsResponse.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';

function wanted(request: DescribeLogDirsRequest): (log: UnifiedLog) => boolean {
  if (request.topics === null) return () => true;
  const keys = new Set(request.topics.flatMap((t) => t.partitions.map((p) => `${t.topic}\u0000${p}`)));
  return (log) => keys.has(`${log.topic}\u0000${log.partition}`);
}

export const handler: Handler<DescribeLogDirsRequest, DescribeLogDirsResponse> = {
  apiKey: 35,
  name: 'DescribeLogDirs',
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    // DESCRIBE on the cluster; without it, an empty answer (KafkaApis.handleDescribeLogDirsRequest).
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
    const include = wanted(request);
    const logs = [...ctx.broker.logManager.allLogs()].filter(include);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: ctx.broker.config.logDirs.map((logDir) => {
        // Kafka lists an offline log dir with KAFKA_STORAGE_ERROR and nothing else.
        if (ctx.broker.logManager.offlineLogDirs.has(logDir)) {
          return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, logDir, topics: [], totalBytes: -1, usableBytes: -1 };
        }
        const byTopic = new Map<string, DescribeLogDirsTopic>();
        for (const log of logs.filter((l) => dirname(l.dir) === logDir)) {
          let topic = byTopic.get(log.topic);
          if (!topic) byTopic.set(log.topic, (topic = { name: log.topic, partitions: [] }));
          topic.partitions.push({ partitionIndex: log.partition, partitionSize: log.size, offsetLag: 0, isFutureKey: false });
        }
        const fs = statfsSync(logDir);
        return {
          errorCode: ErrorCode.NONE,
          logDir,
          topics: [...byTopic.values()],
          totalBytes: fs.blocks * fs.bsize,
          usableBytes: fs.bavail * fs.bsize,
        };
      }),
    };
  },
};
