// Failed logins (SASL, and the admin HTTP's bearer token), logged so that a client guessing passwords cannot
// fill the log. Kafka's Selector logs every one at INFO ("Failed authentication with /host"); here, per
// interval, the first failure of each user and host is logged, at most MAX_LOGGED of them, and the rest are
// counted: when the interval ends one line gives how many were not logged, by user and host.
// kafkite_authentications_total still counts every failure.
import type { Logger } from 'pino';

/** Failures logged one by one per interval, whatever their user and host. */
const MAX_LOGGED = 5;
/** User and host pairs the summary line lists by name; the rest are only counted. */
const MAX_SUMMARIZED = 10;
/** User and host pairs counted one by one per interval: random user names cannot grow memory beyond it. */
const MAX_TRACKED = 1000;

export interface AuthenticationFailure {
  /** The client's address, host:port. */
  remote: string;
  user: string | null;
  mechanism: string | null;
  listener: string;
  reason: string;
}

interface Suppressed {
  user: string | null;
  host: string;
  listener: string;
  mechanism: string | null;
  count: number;
}

export class FailedAuthenticationLog {
  /** user + host pairs logged this interval. */
  private readonly logged = new Set<string>();
  private readonly suppressed = new Map<string, Suppressed>();
  private suppressedCount = 0;
  /** Ends the current interval; none while no failure came since the last one ended. */
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly log: Logger, private readonly intervalMs: number) {}

  record(failure: AuthenticationFailure): void {
    this.timer ??= setTimeout(() => this.endInterval(), this.intervalMs).unref();
    const host = failure.remote.slice(0, failure.remote.lastIndexOf(':'));
    const key = `${failure.user ?? ''}\0${host}`;
    if (!this.logged.has(key) && this.logged.size < MAX_LOGGED) {
      this.logged.add(key);
      this.log.info(
        { remote: failure.remote, user: failure.user, mechanism: failure.mechanism, listener: failure.listener, reason: failure.reason },
        'failed authentication',
      );
      return;
    }
    this.suppressedCount++;
    const entry = this.suppressed.get(key);
    if (entry) entry.count++;
    else if (this.suppressed.size < MAX_TRACKED) this.suppressed.set(key, { user: failure.user, host, listener: failure.listener, mechanism: failure.mechanism, count: 1 });
  }

  /** Logs what the current interval did not (at shutdown). */
  flush(): void {
    clearTimeout(this.timer);
    this.endInterval();
  }

  private endInterval(): void {
    this.timer = undefined;
    this.logged.clear();
    if (this.suppressedCount === 0) return;
    const byCount = [...this.suppressed.values()].sort((a, b) => b.count - a.count);
    this.log.info(
      {
        suppressed: this.suppressedCount,
        intervalMs: this.intervalMs,
        failures: byCount.slice(0, MAX_SUMMARIZED),
        // Pairs not listed (beyond MAX_TRACKED, not even counted apart): their failures are in `suppressed`.
        ...(byCount.length > MAX_SUMMARIZED ? { otherUserHosts: byCount.length - MAX_SUMMARIZED } : {}),
      },
      'failed authentications not logged one by one',
    );
    this.suppressed.clear();
    this.suppressedCount = 0;
  }
}
