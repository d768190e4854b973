// sasl.jaas.config values, read as Kafka's JaasConfig reads them (a java.io.StreamTokenizer): one or more
// `<LoginModuleClass> <required|requisite|sufficient|optional> key=value ... ;` entries, values bare words
// or double-quoted strings (with backslash escapes), `//` and `/* */` comments ignored.

export interface JaasLoginModule {
  readonly loginModule: string;
  readonly flag: string;
  readonly options: ReadonlyMap<string, string>;
}

export class JaasConfigError extends Error {
  override name = 'JaasConfigError';
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

type Token = { kind: 'word' | 'quoted'; text: string } | { kind: 'char'; text: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === '"' || c === "'") {
      let value = '';
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i++];
      }
      if (i >= text.length) throw new JaasConfigError('Unterminated quoted value in JAAS config');
      i++;
      tokens.push({ kind: 'quoted', text: value });
    } else if (/[A-Za-z0-9_.$\-]/.test(c)) {
      let word = '';
      while (i < text.length && /[A-Za-z0-9_.$\-]/.test(text[i]!)) word += text[i++];
      tokens.push({ kind: 'word', text: word });
    } else {
      tokens.push({ kind: 'char', text: c });
      i++;
    }
  }
  return tokens;
}

/** Parses a JAAS config value; throws JaasConfigError with Kafka's wording for a malformed one. */
export function parseJaasConfig(text: string): JaasLoginModule[] {
  const tokens = tokenize(text);
  const modules: JaasLoginModule[] = [];
  let pos = 0;
  const next = (): Token | undefined => tokens[pos++];
  while (pos < tokens.length) {
    const name = next()!;
    if (name.kind !== 'word') throw new JaasConfigError(`Invalid JAAS config: expected a login module name, got '${name.text}'`);
    const flag = next();
    if (!flag || flag.kind !== 'word' || !FLAGS.has(flag.text.toLowerCase())) {
      throw new JaasConfigError(`Invalid JAAS config: invalid control flag '${flag?.text ?? ''}' for ${name.text}`);
    }
    const options = new Map<string, string>();
    for (;;) {
      const t = next();
      if (!t) throw new JaasConfigError(`Invalid JAAS config: login module ${name.text} does not end with ';'`);
      if (t.kind === 'char' && t.text === ';') break;
      const eq = next();
      const value = next();
      if (t.kind !== 'word' || eq?.kind !== 'char' || eq.text !== '=' || !value || value.kind === 'char') {
        throw new JaasConfigError(`Invalid JAAS config: expected key=value options for ${name.text}`);
      }
      options.set(t.text, value.text);
    }
    modules.push({ loginModule: name.text, flag: flag.text.toLowerCase(), options });
  }
  if (modules.length === 0) throw new JaasConfigError('JAAS config entry not terminated by semi-colon');
  return modules;
}

export const PLAIN_LOGIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';

/** PlainLoginModule's `user_<name>="<password>"` options (Kafka's PlainServerCallbackHandler). */
export function plainUsers(modules: readonly JaasLoginModule[]): Map<string, string> {
  const users = new Map<string, string>();
  for (const m of modules) {
    for (const [key, value] of m.options) if (key.startsWith('user_')) users.set(key.slice('user_'.length), value);
  }
  return users;
}
