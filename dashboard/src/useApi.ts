import { useCallback, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, type ApiError, type Query } from './api.ts';

export type Loaded<T> = {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Asks again (after a write), keeping the current data on screen meanwhile. */
  reload: () => void;
};

/**
 * GET a management route and redraw with its answer; asks again when the path or query changes.
 * `path` null waits (a page whose parameters are not known yet).
 */
export function useApi<T>(path: string | null, query?: Query): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: path !== null });
  const [tick, setTick] = useState(0);
  const key = path === null ? null : `${path}|${JSON.stringify(query ?? {})}`;
  const latest = useRef(0);
  // A layout effect: the request leaves as soon as the page is drawn, not a frame later.
  useLayoutEffect(() => {
    if (path === null) return;
    const id = ++latest.current;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    api.get<T>(path, query, { signal: controller.signal }).then(
      (data) => id === latest.current && setState({ data, loading: false }),
      (error: ApiError) => {
        if ((error as Error).name === 'AbortError' || id !== latest.current) return;
        setState((s) => ({ data: s.data, error, loading: false }));
      },
    );
    return () => controller.abort();
  }, [key, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
