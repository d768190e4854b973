// DescribeUserScramCredentials: mechanisms and iteration counts per user, never salts or keys.
import type { DescribeUserScramCredentialsRequest } from '../../protocol/generated/DescribeUserScramCredentialsRequest.js';
import type { DescribeUserScramCredentialsResponse } from '../../protocol/generated/DescribeUserScramCredentialsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';

export const handler: Handler<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse> = {
  apiKey: 50,
  name: 'DescribeUserScramCredentials',
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const users = request.users === null ? null : request.users.map((u) => u.name);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      results: ctx.broker.scramCredentials.describe(users),
    };
  },
};
