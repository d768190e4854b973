// listeners / advertised.listeners / listener.security.protocol.map, parsed as Kafka's EndPoint does:
// NAME://host:port, comma-separated; an empty host binds every interface; IPv6 hosts go in brackets;
// listener names are upper-cased and mapped to a security protocol.
import { ConfigError } from './config-error.js';

const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

export interface Endpoint {
  /** Upper-cased listener name, e.g. PLAINTEXT. */
  readonly name: string;
  /** '' binds every interface (listeners only; advertised hosts are never empty). */
  readonly host: string;
  /** 0 binds an ephemeral port; an advertised 0 stands for the port actually bound. */
  readonly port: number;
  readonly securityProtocol: SecurityProtocol;
}

const ENDPOINT_PATTERN = /^(.*):\/\/\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$/;

function csv(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

export function parseSecurityProtocolMap(raw: string): Map<string, SecurityProtocol> {
  const key = 'listener.security.protocol.map';
  const expected = `comma-separated NAME:PROTOCOL pairs, PROTOCOL one of ${SECURITY_PROTOCOLS.join(', ')}`;
  const map = new Map<string, SecurityProtocol>();
  for (const pair of csv(raw)) {
    const parts = pair.split(/\s*:\s*/);
    const protocol = SECURITY_PROTOCOLS.find((p) => p === parts[1]?.toUpperCase());
    if (parts.length !== 2 || parts[0] === '' || !protocol) throw new ConfigError(key, raw, expected);
    map.set(parts[0]!.toUpperCase(), protocol);
  }
  return map;
}

/** Parses an endpoint list for config `key`; names must be distinct and mapped in `protocols`. */
export function parseEndpoints(key: string, raw: string, protocols: ReadonlyMap<string, SecurityProtocol>): Endpoint[] {
  const endpoints = csv(raw).map((text) => {
    const m = text.match(ENDPOINT_PATTERN);
    const port = m ? Number(m[3]) : -1;
    if (!m || port < 0 || port > 65535) throw new ConfigError(key, raw, 'comma-separated NAME://host:port endpoints, port 0..65535');
    const name = m[1]!.toUpperCase();
    const securityProtocol = protocols.get(name);
    if (!securityProtocol) {
      throw new ConfigError(key, raw, `listener names defined in listener.security.protocol.map, which does not map ${name}`);
    }
    return { name, host: m[2]!, port, securityProtocol };
  });
  const names = endpoints.map((e) => e.name);
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate) throw new ConfigError(key, raw, `each listener to have a different name, ${duplicate} appears twice`);
  return endpoints;
}

/** Rejects ports bound twice. */
export function checkServable(key: string, raw: string, endpoints: readonly Endpoint[]): void {
  const ports = endpoints.map((e) => e.port).filter((port) => port !== 0);
  const duplicate = ports.find((port, i) => ports.indexOf(port) !== i);
  if (duplicate !== undefined) throw new ConfigError(key, raw, `each listener to have a different port, ${duplicate} appears twice`);
}

/** TLS wraps SSL and SASL_SSL listeners. */
export function usesTls(protocol: SecurityProtocol): boolean {
  return protocol === 'SSL' || protocol === 'SASL_SSL';
}

/** SASL authenticates SASL_PLAINTEXT and SASL_SSL listeners. */
export function usesSasl(protocol: SecurityProtocol): boolean {
  return protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL';
}

/** kafkite's `admin.listener`: `http://host:port` (port 0 picks a free one). */
export function parseAdminListener(listener: string): { host: string; port: number } {
  const expected = 'http://host:port';
  let url: URL;
  try {
    url = new URL(listener);
  } catch {
    throw new ConfigError('admin.listener', listener, expected);
  }
  if (url.protocol !== 'http:' || url.pathname !== '/' || url.search !== '' || !/:\d+\/?$/.test(listener)) {
    throw new ConfigError('admin.listener', listener, expected);
  }
  // URL keeps IPv6 hosts bracketed; listen() wants them bare.
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 80) };
}
