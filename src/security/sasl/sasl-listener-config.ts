// What a SASL listener accepts: sasl.enabled.mechanisms, PLAIN users from the JAAS config, SCRAM credentials,
// and the re-authentication period, each resolved per listener (listener.name.<l>.[<mechanism>.]<key>) as Kafka does.
import type { BrokerConfig } from '../../../config/broker-config.js';
import { JaasConfigError, parseJaasConfig, PLAIN_LOGIN_MODULE, plainUsers } from '../jaas.js';
import { scramMechanismByName, type ScramCredentialStore } from '../scram-credentials.js';
import { PlainSaslServer } from './plain-sasl-server.js';
import type { SaslServer } from './sasl-server.js';
import { ScramSaslServer } from './scram-sasl-server.js';

const SUPPORTED_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

export class SaslConfigError extends Error {
  override name = 'SaslConfigError';
  constructor(listenerName: string, key: string, detail: string) {
    super(`Invalid SASL configuration for listener ${listenerName}: ${key}: ${detail}`);
  }
}

export class SaslListenerConfig {
  private constructor(
    readonly listenerName: string,
    readonly mechanisms: readonly string[],
    private readonly plainUsers: ReadonlyMap<string, string>,
    private readonly reauthMs: ReadonlyMap<string, number>,
    private readonly scram: ScramCredentialStore,
  ) {}

  static resolve(config: BrokerConfig, listenerName: string, scram: ScramCredentialStore): SaslListenerConfig {
    const value = (key: string): string | undefined => config.listenerValue(listenerName, key);
    const mechanismsKey = 'sasl.enabled.mechanisms';
    const mechanisms = (value(mechanismsKey) ?? '').split(',').map((m) => m.trim()).filter((m) => m !== '');
    const unsupported = mechanisms.filter((m) => !SUPPORTED_MECHANISMS.includes(m));
    if (mechanisms.length === 0 || unsupported.length > 0) {
      throw new SaslConfigError(
        listenerName,
        mechanismsKey,
        `${unsupported.length > 0 ? `${unsupported.join(', ')} not supported` : 'none enabled'}; kafkite serves ${SUPPORTED_MECHANISMS.join(', ')}`,
      );
    }
    let users = new Map<string, string>();
    if (mechanisms.includes('PLAIN')) {
      // Kafka's JaasContext.loadServerContext: the listener- and mechanism-prefixed key first.
      const keys = ['plain.sasl.jaas.config', 'sasl.jaas.config'];
      const key = keys.find((k) => value(k) !== undefined);
      if (key === undefined) {
        throw new SaslConfigError(listenerName, `listener.name.${listenerName.toLowerCase()}.plain.sasl.jaas.config`, `not set; PLAIN needs ${PLAIN_LOGIN_MODULE} with user_<name>="<password>" options`);
      }
      try {
        const modules = parseJaasConfig(value(key)!).filter((m) => m.loginModule === PLAIN_LOGIN_MODULE);
        if (modules.length === 0) throw new JaasConfigError(`no ${PLAIN_LOGIN_MODULE} entry`);
        users = plainUsers(modules);
      } catch (err) {
        if (err instanceof JaasConfigError) throw new SaslConfigError(listenerName, key, err.message);
        throw err;
      }
    }
    const reauthMs = new Map<string, number>();
    for (const m of mechanisms) {
      const raw = value(`${m.toLowerCase()}.connections.max.reauth.ms`) ?? value('connections.max.reauth.ms') ?? '0';
      const ms = Number(raw);
      if (!Number.isSafeInteger(ms)) throw new SaslConfigError(listenerName, 'connections.max.reauth.ms', `expected a long, got ${raw}`);
      reauthMs.set(m, ms);
    }
    return new SaslListenerConfig(listenerName, mechanisms, users, reauthMs, scram);
  }

  /** A fresh server for one exchange; undefined for a mechanism this listener does not enable. */
  createServer(mechanism: string): SaslServer | undefined {
    if (!this.mechanisms.includes(mechanism)) return undefined;
    if (mechanism === 'PLAIN') return new PlainSaslServer(this.plainUsers);
    const scram = scramMechanismByName(mechanism)!;
    return new ScramSaslServer(scram, (user, m) => this.scram.get(user, m));
  }

  /** connections.max.reauth.ms for a mechanism; 0 means sessions never expire. */
  sessionLifetimeMs(mechanism: string): number {
    return this.reauthMs.get(mechanism) ?? 0;
  }
}
