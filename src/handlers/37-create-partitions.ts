import type { CreatePartitionsRequest } from '../../protocol/generated/CreatePartitionsRequest.js';
import type { CreatePartitionsResponse } from '../../protocol/generated/CreatePartitionsResponse.js';
import { ErrorCode, KafkaError } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeTopic } from '../security/authorization.js';

export const handler: Handler<CreatePartitionsRequest, CreatePartitionsResponse> = {
  apiKey: 37,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 3,
  async handle(request, ctx) {
    const { broker } = ctx;
    return {
      throttleTimeMs: 0,
      results: await Promise.all(request.topics.map(async (t) => {
        if (!authorizeTopic(ctx, AclOperation.ALTER, t.name)) return { name: t.name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.' };
        try {
          const foreign = t.assignments?.some((a) => a.brokerIds.some((id) => id !== broker.nodeId));
          if (foreign) throw new KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Unknown broker(s) in the replica assignment of ${t.name}.`);
          await broker.createPartitions(t.name, t.count, request.validateOnly);
          return { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          return { name: t.name, errorCode: err.code, errorMessage: err.message };
        }
      })),
    };
  },
};
