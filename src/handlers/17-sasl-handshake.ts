// SaslHandshake reaches a handler only where no SASL exchange is under way: on a listener without SASL, or
// after authentication without a session lifetime to re-authenticate in (the connection's
// SaslServerAuthenticator takes it otherwise). Kafka's KafkaApis answers ILLEGAL_SASL_STATE there.
import type { SaslHandshakeRequest } from '../../protocol/generated/SaslHandshakeRequest.js';
import type { SaslHandshakeResponse } from '../../protocol/generated/SaslHandshakeResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';

export const handler: Handler<SaslHandshakeRequest, SaslHandshakeResponse> = {
  apiKey: 17,
  name: 'SaslHandshake',
  minVersion: 0,
  maxVersion: 1,
  handle() {
    return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
  },
};
