// Polling (live figures every 2 s) and hash routing.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from './api';

export interface Loaded<T> {
  data: T | null;
  error: Error | null;
  reload: () => void;
}

/** GETs `path` now and every `intervalMs` (0: once); stops while the tab is hidden. */
export function usePoll<T>(path: string | null, intervalMs = 2000): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    if (path === null) return;
    let stopped = false;
    const load = () => {
      if (document.hidden) return;
      api<T>(path).then(
        (d) => {
          if (!stopped) {
            setData(d);
            setError(null);
          }
        },
        (e: Error) => !stopped && setError(e),
      );
    };
    load();
    const timer = intervalMs > 0 ? setInterval(load, intervalMs) : undefined;
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [path, intervalMs, tick]);
  return { data, error, reload };
}

export function useHash(): string[] {
  const parse = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [parts, setParts] = useState(parse);
  useEffect(() => {
    const on = () => setParts(parse());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return parts;
}
