// kafka-dump-log.sh's --share-group-state-decoder (DumpLogSegments' ShareGroupStateMessageParser): the
// ShareSnapshot and ShareUpdate records of __share_group_state as the JSON Kafka's converters print.
import { Reader } from '../../protocol/primitives.js';
import { readShareSnapshotKey } from '../../protocol/generated/records/ShareSnapshotKey.js';
import { readShareSnapshotValue } from '../../protocol/generated/records/ShareSnapshotValue.js';
import { readShareUpdateValue } from '../../protocol/generated/records/ShareUpdateValue.js';

const SNAPSHOT = 0;
const UPDATE = 1;
/** The default of the tagged DeliveryCompleteCount: Kafka's JSON leaves it out then. */
const NO_DELIVERY_COMPLETE_COUNT = -1;

/** ` key: {...} payload: {...}` for one record, or Kafka's wording for what it cannot parse. */
export function shareGroupStateRecordText(key: Buffer | null, value: Buffer | null): string {
  if (key === null) return ' key: null payload: null';
  let type: number;
  let keyJson: string;
  try {
    const r = new Reader(key);
    type = r.int16();
    if (type !== SNAPSHOT && type !== UPDATE) return ` key: Unknown record type ${type} payload: ${value === null ? '<DELETE>' : 'null'}`;
    const k = readShareSnapshotKey(r, 0);
    keyJson = JSON.stringify({ type: String(type), data: { ...k, topicId: Buffer.from(k.topicId, 'hex').toString('base64url') } });
  } catch (err) {
    return ` key: Failed to decode: ${(err as Error).message}`;
  }
  if (value === null) return ` key: ${keyJson} payload: <DELETE>`;
  try {
    const r = new Reader(value);
    const version = r.int16();
    const data: Record<string, unknown> = type === SNAPSHOT ? { ...readShareSnapshotValue(r, version) } : { ...readShareUpdateValue(r, version) };
    if (data.deliveryCompleteCount === NO_DELIVERY_COMPLETE_COUNT) delete data.deliveryCompleteCount;
    return ` key: ${keyJson} payload: ${JSON.stringify({ version: String(version), data })}`;
  } catch (err) {
    return ` key: ${keyJson} payload: Failed to decode: ${(err as Error).message}`;
  }
}
