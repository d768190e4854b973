// The response that answers a request with one error throughout, for any API key and version: what Kafka's
// AbstractRequest.getErrorResponse builds per request class (a handler that threw is answered this way, and
// the connection stays open). Built from the compact schemas: every error code and message in the response
// gets the error, and each topic, partition, group or resource of the request gets its entry, named as in the
// request, as the request classes copy them (e.g. ProduceRequest: every partition of every topic;
// DescribeGroupsRequest: every group; DeleteTopicsRequest: every topic name).
import { MESSAGE_SCHEMAS, type FieldSchema, type MessageSchema } from './generated/schemas.js';
import { defaultStruct, elementType, fieldKey, inVersionRange } from './schema-values.js';

/** The fields that say which topic, partition, group or resource an entry is about: copied from the request. */
const IDENTIFIERS = new Set(['Name', 'Topic', 'TopicName', 'TopicId', 'PartitionIndex', 'Partition', 'Index', 'PartitionId', 'GroupId',
  'TransactionalId', 'MemberId', 'GroupInstanceId', 'ResourceType', 'ResourceName', 'EntityType', 'EntityName', 'Key', 'User']);
/** Names the request and response of one API give the same thing (Fetch's Partition is its response's PartitionIndex). */
const SAME_THING = [
  ['Name', 'Topic', 'TopicName'],
  ['PartitionIndex', 'Partition', 'Index', 'PartitionId'],
  ['User', 'Name'],
];

const RESPONSES = new Map<number, MessageSchema>();
const REQUESTS = new Map<number, MessageSchema>();
for (const s of MESSAGE_SCHEMAS) {
  if (s.apiKey === undefined) continue;
  if (s.type === 'response') RESPONSES.set(s.apiKey, s);
  else if (s.type === 'request') REQUESTS.set(s.apiKey, s);
}

const isErrorCode = (f: FieldSchema) => f.type === 'int16' && f.name.endsWith('ErrorCode');
const isErrorMessage = (f: FieldSchema) => f.type === 'string' && f.name.endsWith('ErrorMessage');
const present = (f: FieldSchema, version: number) => inVersionRange(version, f.versions) && f.tag === undefined;
const sameThing = (a: string) => SAME_THING.find((group) => group.includes(a)) ?? [a];

/** The identifying field of `fields` that carries what response field `field` names. */
function counterpart(field: FieldSchema, fields: readonly FieldSchema[], version: number): FieldSchema | undefined {
  if (!IDENTIFIERS.has(field.name)) return undefined;
  const names = sameThing(field.name);
  return fields.find((f) => names.includes(f.name) && present(f, version) && f.type === field.type);
}

/**
 * The request array a response array of entries answers: the one of the same name, else one whose elements
 * the entries can name, i.e. structs sharing an identifying field (ProduceRequest's TopicData for
 * ProduceResponse's Responses) or bare names or indexes (DeleteGroups' GroupsNames for its Results); never a
 * filter (ListGroups' StatesFilter).
 */
function sourceArray(field: FieldSchema, requestFields: readonly FieldSchema[], version: number): FieldSchema | undefined {
  const candidates = requestFields.filter((f) => f.type.startsWith('[]') && present(f, version) && !f.name.includes('Filter'));
  const same = candidates.find((f) => f.name === field.name);
  if (same) return same;
  const identifiers = field.fields!.filter((f) => IDENTIFIERS.has(f.name) && present(f, version));
  const matching = candidates.filter((f) => f.fields
    ? identifiers.some((id) => counterpart(id, f.fields!, version))
    : identifiers.some((id) => id.type === elementType(f)));
  // The first, when several could be (FetchRequest's Topics before its ForgottenTopicsData).
  return matching[0];
}

/**
 * A response struct for one request struct: every error set, arrays of entries mirrored, and in an entry its
 * identifiers copied (not at the top level: JoinGroupRequest's error response has no member id).
 */
function mirror(
  fields: readonly FieldSchema[], version: number, error: ApiError, from: Record<string, unknown>, fromFields: readonly FieldSchema[], isEntry = true,
): Record<string, unknown> {
  const out = defaultStruct(fields);
  for (const field of fields) {
    if (!present(field, version)) continue;
    const key = fieldKey(field);
    if (field.type === 'records' && !inVersionRange(version, field.nullableVersions)) {
      // Kafka's default is null, which a version that cannot carry null (ShareFetch v1+) sends as no records.
      out[key] = Buffer.alloc(0);
    } else if (isErrorCode(field)) {
      out[key] = error.code;
    } else if (isErrorMessage(field)) {
      out[key] = error.message ?? (inVersionRange(version, field.nullableVersions) ? null : '');
    } else if (field.type.startsWith('[]') && field.fields) {
      const source = sourceArray(field, fromFields, version);
      const entries = source ? from[fieldKey(source)] : undefined;
      if (Array.isArray(entries)) out[key] = entries.map((e) => entry(field.fields!, version, error, e, source!));
    } else if (isEntry) {
      const source = counterpart(field, fromFields, version);
      const value = source ? from[fieldKey(source)] : undefined;
      // A null name stays the default where the response cannot carry null (Metadata v10-11).
      if (value !== undefined && (value !== null || inVersionRange(version, field.nullableVersions))) out[key] = value;
    }
  }
  return out;
}

/** One response entry for one element of a request array: a struct, or a bare name or index. */
function entry(fields: readonly FieldSchema[], version: number, error: ApiError, element: unknown, source: FieldSchema): Record<string, unknown> {
  if (source.fields) return mirror(fields, version, error, element as Record<string, unknown>, source.fields);
  const out = mirror(fields, version, error, {}, []);
  const id = fields.find((f) => IDENTIFIERS.has(f.name) && present(f, version) && f.type === elementType(source));
  if (id) out[fieldKey(id)] = element;
  return out;
}

/** Kafka's ApiError: a code, and a message or null (UNKNOWN_SERVER_ERROR never has one, so nothing internal leaks). */
export interface ApiError {
  code: number;
  message: string | null;
}

/** The response to `request` (decoded at `version`) in which everything failed with `error`. */
export function errorResponse(apiKey: number, version: number, request: unknown, error: ApiError): Record<string, unknown> {
  const response = RESPONSES.get(apiKey);
  const requestSchema = REQUESTS.get(apiKey);
  if (!response || !requestSchema) throw new Error(`no schema for API key ${apiKey}`);
  return mirror(response.fields, version, error, request as Record<string, unknown>, requestSchema.fields, false);
}
