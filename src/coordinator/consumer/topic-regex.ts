// Regular-expression subscriptions (KIP-848, ConsumerGroupHeartbeat v1): evaluated on the broker with
// RE2/J syntax, as Kafka's GroupMetadataManager does with com.google.re2j.Pattern; re2js is a JS port of RE2/J.
import { RE2JS, RE2JSSyntaxException } from 're2js';

/** Kafka's InvalidRegularExpression (INVALID_REGULAR_EXPRESSION). */
export class InvalidRegularExpressionError extends Error {
  override name = 'InvalidRegularExpressionError';
}

const compiled = new Map<string, RE2JS>();
/** Bounds the cache: regexes come from clients. */
const MAX_CACHED = 1000;

/** Kafka's throwIfRegularExpressionIsInvalid: compiles the regex or throws with Kafka's message. */
export function compileTopicRegex(regex: string): RE2JS {
  let pattern = compiled.get(regex);
  if (pattern) return pattern;
  try {
    pattern = RE2JS.compile(regex);
  } catch (err) {
    if (!(err instanceof RE2JSSyntaxException)) throw err;
    throw new InvalidRegularExpressionError(`SubscribedTopicRegex \`${regex}\` is not a valid regular expression: ${err.getDescription()}.`);
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(regex, pattern);
  return pattern;
}

/** Kafka's refreshRegularExpressions: every topic whose whole name matches (Matcher.matches, not find). */
export function resolveTopicRegex(regex: string, topicNames: Iterable<string>): Set<string> {
  const pattern = compileTopicRegex(regex);
  const matched = new Set<string>();
  for (const name of topicNames) if (pattern.matches(name)) matched.add(name);
  return matched;
}
