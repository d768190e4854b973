import type { ListPartitionReassignmentsRequest } from '../../protocol/generated/ListPartitionReassignmentsRequest.js';
import type { ListPartitionReassignmentsResponse } from '../../protocol/generated/ListPartitionReassignmentsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';

/** Reassignments complete at once on one broker, so none is ever in progress. */
export const handler: Handler<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse> = {
  apiKey: 46,
  name: 'ListPartitionReassignments',
  minVersion: 0,
  maxVersion: 0,
  handle: () => ({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [] }),
};
