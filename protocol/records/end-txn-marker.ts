// Control records that end a transaction (Kafka's ControlRecordType and EndTransactionMarker):
//   key:   version int16 (0), type int16 (0 ABORT, 1 COMMIT)
//   value: version int16 (0), coordinatorEpoch int32
// They sit alone in a control batch (attributes: control and transactional flags, no sequence).

const CONTROL_RECORD_KEY_VERSION = 0;
const END_TXN_MARKER_VERSION = 0;
export const ABORT_CONTROL_TYPE = 0;
export const COMMIT_CONTROL_TYPE = 1;

export interface EndTxnMarker {
  commit: boolean;
  coordinatorEpoch: number;
}

export function encodeControlKey(commit: boolean): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(CONTROL_RECORD_KEY_VERSION, 0);
  key.writeInt16BE(commit ? COMMIT_CONTROL_TYPE : ABORT_CONTROL_TYPE, 2);
  return key;
}

export function encodeEndTxnMarkerValue(coordinatorEpoch: number): Buffer {
  const value = Buffer.alloc(6);
  value.writeInt16BE(END_TXN_MARKER_VERSION, 0);
  value.writeInt32BE(coordinatorEpoch, 2);
  return value;
}

/** The control type in a control record's key, or null for a key too short to hold one. */
export function controlTypeOf(key: Buffer | null): number | null {
  return key !== null && key.length >= 4 ? key.readInt16BE(2) : null;
}

/** Parses a control record as an end-transaction marker; null for other control types (or damaged ones). */
export function decodeEndTxnMarker(key: Buffer | null, value: Buffer | null): EndTxnMarker | null {
  const type = controlTypeOf(key);
  if (type !== ABORT_CONTROL_TYPE && type !== COMMIT_CONTROL_TYPE) return null;
  const coordinatorEpoch = value !== null && value.length >= 6 ? value.readInt32BE(2) : -1;
  return { commit: type === COMMIT_CONTROL_TYPE, coordinatorEpoch };
}
