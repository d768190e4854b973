// Real frames with bytes derived by hand from protocol.html: the codecs must decode them to the
// expected values and encode those values back to the very same bytes.
import { describe, expect, it } from 'vitest';
import { DecodeError, EncodeError, Reader, Writer } from '../../protocol/primitives.js';
import {
  API_KEYS,
  ApiKey,
  readRequestHeader,
  requestHeaderVersion,
  responseHeaderVersion,
  writeRequestHeader,
  writeResponseHeader,
} from '../../protocol/generated/index.js';
import { readApiVersionsRequest } from '../../protocol/generated/ApiVersionsRequest.js';
import { writeMetadataRequest } from '../../protocol/generated/MetadataRequest.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text: string) => Buffer.from(text, 'latin1').toString('hex');

/** Decodes a request frame (size prefix included) and re-encodes it. */
function roundTripRequest(frame: Buffer) {
  const r = new Reader(frame);
  expect(r.int32()).toBe(frame.length - 4);
  const apiKey = frame.readInt16BE(4);
  const version = frame.readInt16BE(6);
  const headerVersion = requestHeaderVersion(apiKey, version);
  const header = readRequestHeader(r, headerVersion);
  const api = API_KEYS[apiKey]!;
  const body = api.readRequest(r, version);
  expect(r.remaining).toBe(0);

  const w = new Writer();
  w.int32(0);
  writeRequestHeader(w, headerVersion, header);
  api.writeRequest(w, version, body);
  w.patchInt32(0, w.length - 4);
  expect(w.toBuffer().toString('hex')).toBe(frame.toString('hex'));
  return { header, body };
}

describe('golden request frames', () => {
  it('ApiVersions v3 as librdkafka sends it (header v2, client id stays a non-compact string)', () => {
    const frame = hex(`
      00000024
      0012 0003 00000001 0007 ${ascii('rdkafka')} 00
      0b ${ascii('librdkafka')} 06 ${ascii('2.3.0')} 00`);
    const { header, body } = roundTripRequest(frame);
    expect(header).toEqual({ requestApiKey: 18, requestApiVersion: 3, correlationId: 1, clientId: 'rdkafka' });
    // ClusterId and NodeId are v5's (Kafka 4.4, KIP-1242): v3 reads them as their defaults.
    expect(body).toEqual({ clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.3.0', clusterId: null, nodeId: -1 });
  });

  it('Metadata v1 for one topic, and for all topics (null array)', () => {
    const one = hex(`0000001a 0003 0001 00000007 0007 ${ascii('kafkajs')} 00000001 0003 ${ascii('foo')}`);
    const { header, body } = roundTripRequest(one);
    expect(header.clientId).toBe('kafkajs');
    expect(body).toEqual({
      topics: [{ topicId: '0'.repeat(32), name: 'foo' }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const all = hex(`00000015 0003 0001 00000008 0007 ${ascii('kafkajs')} ffffffff`);
    expect(roundTripRequest(all).body).toMatchObject({ topics: null });
  });

  it('Metadata v0 has no null topics array: encoding one is an EncodeError', () => {
    const m = { topics: null, allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false };
    expect(() => writeMetadataRequest(new Writer(), 0, m)).toThrow(EncodeError);
  });

  it('Produce v3 with a null transactional id and one partition of records', () => {
    const frame = hex(`
      00000032
      0000 0003 00000002 0007 ${ascii('kafkajs')}
      ffff ffff 00007530
      00000001 0003 ${ascii('foo')}
        00000001 00000000 00000004 deadbeef`);
    const { body } = roundTripRequest(frame);
    expect(body).toEqual({
      transactionalId: null,
      acks: -1,
      timeoutMs: 30000,
      // topicId is v13's (Kafka 4.1+, topic ids instead of names): the zero uuid below it.
      topicData: [{ name: 'foo', topicId: '0'.repeat(32), partitionData: [{ index: 0, records: hex('deadbeef') }] }],
    });
    // Records are a view into the request buffer, not a copy.
    const records = (body as { topicData: { partitionData: { records: Buffer }[] }[] }).topicData[0].partitionData[0].records;
    expect(records.buffer).toBe(frame.buffer);
  });

  it('skips unknown tagged fields', () => {
    const body = hex(`02 ${ascii('x')} 02 ${ascii('1')} 01 05 02 aabb`);
    const r = new Reader(body);
    expect(readApiVersionsRequest(r, 3)).toEqual({ clientSoftwareName: 'x', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
    expect(r.remaining).toBe(0);
  });

  it('rejects a tagged field whose size runs past the frame', () => {
    expect(() => readApiVersionsRequest(new Reader(hex(`02 ${ascii('x')} 02 ${ascii('1')} 01 05 09 aabb`)), 3)).toThrow(DecodeError);
  });
});

describe('golden response frames', () => {
  it('ApiVersions v3 response: header v0, known tagged field written only when not default', () => {
    const api = API_KEYS[ApiKey.ApiVersions]!;
    const response = {
      errorCode: 0,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }],
      throttleTimeMs: 0,
      supportedFeatures: [],
      finalizedFeaturesEpoch: 5,
      finalizedFeatures: [],
      zkMigrationReady: false,
    };
    const w = new Writer();
    writeResponseHeader(w, responseHeaderVersion(ApiKey.ApiVersions, 3), 7);
    api.writeResponse(w, 3, response);
    const expected = hex(`
      00000007
      0000 02 0012 0000 0004 00 00000000
      01 01 08 0000000000000005`);
    expect(w.toBuffer().toString('hex')).toBe(expected.toString('hex'));

    const r = new Reader(expected, 4);
    expect(api.readResponse(r, 3)).toEqual(response);
    expect(r.remaining).toBe(0);
  });
});

describe('header versions', () => {
  it('follows flexible versions, with ApiVersions\' exception', () => {
    expect(requestHeaderVersion(ApiKey.Fetch, 11)).toBe(1);
    expect(requestHeaderVersion(ApiKey.Fetch, 12)).toBe(2);
    expect(responseHeaderVersion(ApiKey.Metadata, 8)).toBe(0);
    expect(responseHeaderVersion(ApiKey.Metadata, 9)).toBe(1);
    expect(responseHeaderVersion(ApiKey.ApiVersions, 3)).toBe(0);
  });

  it('indexes API_KEYS by api key with Kafka\'s version ranges', () => {
    // Kafka 4.4's Produce is 3-13; kafkite's codecs keep v0-2 (protocol/generator/legacy-versions.ts).
    expect(API_KEYS[0]).toMatchObject({ apiKey: 0, name: 'Produce', minVersion: 0, maxVersion: 13, flexibleMin: 9 });
    expect(API_KEYS[ApiKey.Fetch]).toMatchObject({ minVersion: 0, maxVersion: 18, flexibleMin: 12 });
    // ControlledShutdown (7), whose v0 alone used request header v0, is retired in Kafka 4 ("validVersions": "none").
    expect(API_KEYS[7]).toBeUndefined();
    expect(API_KEYS[-1]).toBeUndefined();
    API_KEYS.forEach((api, key) => expect(api?.apiKey).toBe(key));
  });
});
