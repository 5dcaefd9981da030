// Shared by the simulator tests: a real HTTP request over loopback, nothing mocked.
import * as http from 'http';

export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on a fresh connection (agent: false), so a dropped socket fails only this one. */
export function request(
  baseUrl: string,
  path: string,
  opts: { token?: string | null; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  const token = opts.token === undefined ? 'demo-token' : opts.token;
  const headers: Record<string, string> = { ...opts.headers };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method: opts.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
      res.on('aborted', () => reject(new Error('response aborted')));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export async function getJson(baseUrl: string, path: string, token?: string | null): Promise<{ status: number; json: any }> {
  const res = await request(baseUrl, path, { token });
  return { status: res.status, json: JSON.parse(res.body) };
}

/** A clock the test moves by hand. */
export function manualClock(start: number | string): { now: () => number; set(at: number | string): void; advance(ms: number): void } {
  let current = typeof start === 'string' ? Date.parse(start) : start;
  return {
    now: () => current,
    set(at) {
      current = typeof at === 'string' ? Date.parse(at) : at;
    },
    advance(ms) {
      current += ms;
    },
  };
}
