// Small shared pieces: error and loading lines, a labelled action button that reports its result.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function Status({ error, loading }: { error: Error | null; loading?: boolean }) {
  if (error) return <p class="error" role="alert">{error.message}</p>;
  if (loading) return <p aria-live="polite">Loading…</p>;
  return null;
}

/** Runs an action, shows its error (or `done` text) next to the form. */
export function useAction(): { busy: boolean; message: string | null; error: string | null; run: (fn: () => Promise<unknown>, done?: string) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return {
    busy,
    message,
    error,
    async run(fn, done) {
      setBusy(true);
      setError(null);
      setMessage(null);
      try {
        await fn();
        if (done) setMessage(done);
      } catch (e) {
        setError((e as Error).message);
      } finally {
        setBusy(false);
      }
    },
  };
}

export function ActionResult({ message, error }: { message: string | null; error: string | null }) {
  return (
    <>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {message ? <p class="ok" role="status">{message}</p> : null}
    </>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}
