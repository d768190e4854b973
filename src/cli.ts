// `kafkite start [server.properties] [--override key=value]...`, as kafka-server-start.sh takes them.
import { ConfigError, PropertiesSyntaxError, loadBrokerConfig, type LoadedConfig } from '../config/broker-config.js';
import { createLogger } from './logger.js';
import { ListenerBindError } from './network/socket-server.js';
import { LogDirError } from './broker.js';
import { MetadataSnapshotError } from './metadata/metadata-log-files.js';
import { UnservableDataDirError } from './metadata/servable-data-dir.js';
import { KafkiteServer } from './server.js';
import { SaslConfigError } from './security/sasl/sasl-listener-config.js';
import { SslConfigError } from './security/ssl-engine-factory.js';

const USAGE = `Usage:
  kafkite start [server.properties] [--override key=value]...
  kafkite dump-log --files f1[,f2] [--print-data-log] [--deep-iteration] [--index-sanity-check] [--share-group-state-decoder]
  kafkite kafka-config [server.properties] [--override key=value]... [--controller-port N]
  kafkite lookup --dir <partition dir> (--offset N | --timestamp T) [--max-bytes B] [--json]`;

const DEFAULT_CONFIG_FILE = 'config/server.properties';

function fail(message: string, exitCode: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
}

function parseStartArgs(args: string[], extra: Record<string, (value: string | undefined) => void> = {}): { file: string; overrides: string[] } {
  let file: string | undefined;
  const overrides: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (Object.hasOwn(extra, arg)) {
      extra[arg]!(args[++i]);
    } else if (arg === '--override') {
      const value = args[++i];
      if (value === undefined || !value.includes('=')) fail(`--override expects key=value\n${USAGE}`, 2);
      overrides.push(value);
    } else if (arg.startsWith('--override=')) {
      overrides.push(arg.slice('--override='.length));
    } else if (!arg.startsWith('-') && file === undefined) {
      file = arg;
    } else {
      fail(`Unknown argument: ${arg}\n${USAGE}`, 2);
    }
  }
  return { file: file ?? DEFAULT_CONFIG_FILE, overrides };
}

function loadConfig(file: string, overrides: string[]): LoadedConfig {
  try {
    return loadBrokerConfig({ file, overrides, env: process.env });
  } catch (err) {
    if (err instanceof ConfigError || err instanceof PropertiesSyntaxError || (err as NodeJS.ErrnoException).code === 'ENOENT') {
      fail((err as Error).message, 2);
    }
    throw err;
  }
}

async function start(args: string[]): Promise<void> {
  const { file, overrides } = parseStartArgs(args);
  const loaded = loadConfig(file, overrides);
  const { config } = loaded;
  const log = createLogger(config.logLevel);
  log.info(
    {
      configFile: file,
      listeners: config.listeners.map((l) => `${l.name}://${l.host}:${l.port}`),
      logDirs: config.logDirs,
      nodeId: config.nodeId,
    },
    'starting kafkite',
  );
  for (const key of loaded.unknownKeys) log.warn({ key }, 'unknown configuration ignored');
  if (loaded.inertKeys.length > 0) log.info({ keys: loaded.inertKeys }, 'configurations accepted without effect on a single node');

  let server: KafkiteServer;
  try {
    server = await KafkiteServer.start(config, log);
  } catch (err) {
    if (err instanceof ListenerBindError || err instanceof LogDirError || err instanceof UnservableDataDirError || err instanceof MetadataSnapshotError || err instanceof SslConfigError || err instanceof SaslConfigError || err instanceof ConfigError) {
      log.fatal({ error: err.message }, 'start-up failed');
      fail(err.message, 1);
    }
    log.fatal({ err }, 'start-up failed');
    fail(`start-up failed: ${(err as Error).message}`, 1);
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'unclean shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function dumpLogCommand(args: string[]): Promise<void> {
  const { runDumpLog } = await import('./tools/dump-log-cli.js');
  await runDumpLog(args);
}

/** The server.properties of an Apache Kafka 4.4 combined node on this config's data dirs, on stdout. */
async function kafkaConfigCommand(args: string[]): Promise<void> {
  let controllerPort: number | undefined;
  const { file, overrides } = parseStartArgs(args, {
    '--controller-port': (value) => {
      if (value === undefined || !/^\d+$/.test(value) || Number(value) > 65535) fail(`--controller-port expects a port\n${USAGE}`, 2);
      controllerPort = Number(value);
    },
  });
  const { kafkaServerProperties } = await import('./tools/kafka-config-cli.js');
  const lines = kafkaServerProperties(loadConfig(file, overrides), controllerPort).map(([k, v]) => `${k}=${v}`);
  process.stdout.write(`# Apache Kafka 4.4 combined node on kafkite's data (kafkite kafka-config)\n${lines.join('\n')}\n`);
}

async function lookupCommand(args: string[]): Promise<void> {
  const { runLookup } = await import('./tools/lookup-cli.js');
  await runLookup(args);
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  start, 'dump-log': dumpLogCommand, 'kafka-config': kafkaConfigCommand, lookup: lookupCommand,
};

export function main(argv: string[]): void {
  const [command, ...rest] = argv;
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) fail(USAGE, command === undefined || command === '--help' ? 0 : 2);
  run(rest).catch((err) => fail(`kafkite: ${(err as Error).stack ?? err}`, 1));
}
