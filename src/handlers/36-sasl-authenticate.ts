// SaslAuthenticate reaches a handler only outside a SASL exchange (see 17-sasl-handshake.ts); Kafka's
// KafkaApis answers ILLEGAL_SASL_STATE with this message.
import type { SaslAuthenticateRequest } from '../../protocol/generated/SaslAuthenticateRequest.js';
import type { SaslAuthenticateResponse } from '../../protocol/generated/SaslAuthenticateResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';

export const handler: Handler<SaslAuthenticateRequest, SaslAuthenticateResponse> = {
  apiKey: 36,
  name: 'SaslAuthenticate',
  minVersion: 0,
  maxVersion: 2,
  handle() {
    return {
      errorCode: ErrorCode.ILLEGAL_SASL_STATE,
      errorMessage: 'SaslAuthenticate request received after successful authentication',
      authBytes: Buffer.alloc(0),
      sessionLifetimeMs: 0,
    };
  },
};
