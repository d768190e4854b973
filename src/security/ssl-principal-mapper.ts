// ssl.principal.mapping.rules, as Kafka's SslPrincipalMapper applies them to a client certificate's
// distinguished name (RFC 2253, as Java's X500Principal.getName() prints it): the first rule whose pattern
// matches the whole DN rewrites it; DEFAULT keeps the DN; no matching rule fails the authentication.
import type { X509Certificate } from 'node:crypto';

interface Rule {
  /** null for DEFAULT. */
  readonly pattern: RegExp | null;
  readonly replacement: string;
  readonly toLowerCase: boolean;
  readonly toUpperCase: boolean;
}

export class SslPrincipalMappingError extends Error {
  override name = 'SslPrincipalMappingError';
}

// Kafka's RULE_PARSER: DEFAULT, or RULE:pattern/replacement/[LU], separated by commas or newlines.
const RULE_PARSER = /((DEFAULT)|RULE:((?:\\.|[^\\/])*)\/((?:\\.|[^\\/])*)\/([LU]?).*?|(.*?))\s*(?:[,\n]\s*|$)/y;

/** Java's replacement syntax ($1, \$) is JavaScript's but for the escape of a literal dollar sign. */
function jsReplacement(java: string): string {
  return java.replace(/\\\$/g, '$$$$').replace(/\\(.)/g, '$1');
}

export class SslPrincipalMapper {
  private constructor(private readonly rules: readonly Rule[]) {}

  static fromRules(text: string): SslPrincipalMapper {
    const rules: Rule[] = [];
    const trimmed = text.trim();
    RULE_PARSER.lastIndex = 0;
    while (RULE_PARSER.lastIndex < trimmed.length) {
      const start = RULE_PARSER.lastIndex;
      const m = RULE_PARSER.exec(trimmed);
      if (!m || m[6] !== undefined && m[6] !== '' || RULE_PARSER.lastIndex === start) {
        throw new SslPrincipalMappingError(
          `invalid rule at '${trimmed.slice(start)}' in '${text}'`,
        );
      }
      if (m[2] !== undefined) {
        rules.push({ pattern: null, replacement: '', toLowerCase: false, toUpperCase: false });
      } else {
        rules.push({
          pattern: new RegExp(`^(?:${m[3]!})$`),
          replacement: jsReplacement(m[4]!),
          toLowerCase: m[5] === 'L',
          toUpperCase: m[5] === 'U',
        });
      }
    }
    return new SslPrincipalMapper(rules.length > 0 ? rules : [{ pattern: null, replacement: '', toLowerCase: false, toUpperCase: false }]);
  }

  /** The principal name for a DN; throws SslPrincipalMappingError when no rule applies. */
  getName(distinguishedName: string): string {
    for (const rule of this.rules) {
      if (rule.pattern === null) return distinguishedName;
      if (!rule.pattern.test(distinguishedName)) continue;
      const name = distinguishedName.replace(rule.pattern, rule.replacement);
      return rule.toLowerCase ? name.toLowerCase() : rule.toUpperCase ? name.toUpperCase() : name;
    }
    throw new SslPrincipalMappingError(`No rules apply to ${distinguishedName}`);
  }
}

function escapeRfc2253(value: string): string {
  return value.replace(/([,+"\\<>;])/g, '\\$1').replace(/^([#\s])/, '\\$1').replace(/(\s)$/, '\\$1');
}

/**
 * A certificate's subject as RFC 2253 prints it: most specific attribute first (the reverse of the
 * certificate's order, which node lists top-down), comma-separated, special characters escaped.
 */
export function rfc2253SubjectOf(cert: X509Certificate): string {
  return cert.subject
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const eq = line.indexOf('=');
      return `${line.slice(0, eq)}=${escapeRfc2253(line.slice(eq + 1))}`;
    })
    .reverse()
    .join(',');
}
