// Every API key kafkite implements. ApiVersions advertises exactly this table.
import type { Handler } from './handler.js';
import { handler as produce } from './00-produce.js';
import { handler as fetch } from './01-fetch.js';
import { handler as listOffsets } from './02-list-offsets.js';
import { handler as metadata } from './03-metadata.js';
import { handler as apiVersions } from './18-api-versions.js';
import { handler as createTopics } from './19-create-topics.js';
import { handler as deleteTopics } from './20-delete-topics.js';
import { handler as initProducerId } from './22-init-producer-id.js';

export const HANDLERS: ReadonlyMap<number, Handler> = new Map(
  [produce, fetch, listOffsets, metadata, apiVersions, createTopics, deleteTopics, initProducerId].map((h) => [h.apiKey, h]),
);
