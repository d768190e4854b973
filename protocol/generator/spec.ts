// Loading Kafka's message spec files: JSON with `//` line comments.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyGaPatches } from './ga-patches.js';

export interface FieldSpec {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  flexibleVersions?: string;
  default?: string | number | boolean;
  ignorable?: boolean;
  about?: string;
  fields?: FieldSpec[];
}

export interface StructSpec {
  name: string;
  versions: string;
  fields: FieldSpec[];
}

export interface MessageSpec {
  name: string;
  type: 'request' | 'response' | 'header' | 'data';
  apiKey?: number;
  validVersions: string;
  flexibleVersions: string;
  latestVersionUnstable?: boolean;
  fields: FieldSpec[];
  commonStructs?: StructSpec[];
}

/** Removes `//` comments, leaving string literals (which may contain "//") untouched. */
function stripLineComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else {
      out += c;
    }
  }
  return out;
}

const EXTRA_SPECS = new Set([
  'RequestHeader.json',
  'ResponseHeader.json',
  'ConsumerProtocolSubscription.json',
  'ConsumerProtocolAssignment.json',
]);

/** Every request, response, header and consumer-protocol spec in `dir`, sorted by file name, with GA's changes. */
export function loadSpecs(dir: string): MessageSpec[] {
  return readdirSync(dir)
    .filter((file) => /(Request|Response)\.json$/.test(file) || EXTRA_SPECS.has(file))
    .sort()
    .map((file) => {
      try {
        return applyGaPatches(JSON.parse(stripLineComments(readFileSync(join(dir, file), 'utf8'))) as MessageSpec);
      } catch (err) {
        throw new Error(`${file}: ${(err as Error).message}`);
      }
    });
}
