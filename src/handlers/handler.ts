// The contract between the network layer and the per-API-key handlers (one file per key, like kfake).
import type { Logger } from 'pino';
import type { Broker } from '../broker.js';
import type { KafkaPrincipal } from '../security/principal.js';

export interface RequestContext {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  /** Unique per TCP connection, for logs and per-connection state. */
  readonly connectionId: number;
  readonly remoteAddress: string;
  readonly listenerName: string;
  /** Who the connection authenticated as; User:ANONYMOUS where nothing authenticates. */
  readonly principal: KafkaPrincipal;
  readonly broker: Broker;
  readonly log: Logger;
  /** The handler adds the time it spends parked (Kafka's RemoteTimeMs) here; see waitRemote. */
  readonly timing: RequestTiming;
  /**
   * The response will wait (an acks=all produce for its fdatasync, a fetch for data): the request is
   * acknowledged at the TCP level now, so a client with Nagle's algorithm on still sends what follows.
   */
  readonly responseDelayed?: () => void;
}

/** What a handler reports of its own timing, for Kafka-like request metrics. */
export interface RequestTiming {
  /** Milliseconds spent waiting in a purgatory (a long-polling fetch waiting for data). */
  remoteMs: number;
}

/** Awaits `waiting`, counting the time as the request's remote time (Kafka's RemoteTimeMs). */
export async function waitRemote<T>(ctx: RequestContext, waiting: Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await waiting;
  } finally {
    ctx.timing.remoteMs += performance.now() - started;
  }
}

/** What a handler returns: the response body, or NO_RESPONSE (Produce with acks=0). */
export const NO_RESPONSE = Symbol('no response');

export interface Handler<Req = any, Res = any> {
  readonly apiKey: number;
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  handle(request: Req, ctx: RequestContext): Res | typeof NO_RESPONSE | Promise<Res | typeof NO_RESPONSE>;
}

/** The client's host as Kafka reports it in group descriptions: "/" and the address, without the port. */
export function clientHostOf(remoteAddress: string): string {
  const colon = remoteAddress.lastIndexOf(':');
  return '/' + (colon >= 0 ? remoteAddress.slice(0, colon) : remoteAddress);
}
