// The broker's /v1 JSON API. A bearer token (asked for when the admin listener answers 401) is kept for the tab.
const TOKEN_KEY = 'kafkite.admin.token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function setToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  // The page's Referrer-Policy is no-referrer, under which the Fetch standard sends `Origin: null` on a POST;
  // same-origin here keeps the real Origin on the console's own writes, which the admin HTTP checks.
  const res = await fetch(path, { method: init.method ?? 'GET', headers, referrerPolicy: 'same-origin', body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!res.ok) throw new ApiError(res.status, String(body.error ?? res.status), String(body.message ?? body.error ?? res.statusText));
  return body as T;
}

export const enc = encodeURIComponent;

export interface OverviewData {
  clusterId: string;
  nodeId: number;
  version: string;
  uptimeMs: number;
  readOnly: boolean;
  listeners: Array<{ name: string; address: string }>;
  logDirs: Array<{ dir: string; usedBytes: number; freeBytes: number | null; totalBytes: number | null }>;
  topics: number;
}
