/**
 * The mutator orval's fetch client calls for every request: the server's origin before the path,
 * the token, and `Content-Type: application/json` on a JSON body (orval leaves it out where an
 * operation also takes `multipart/form-data`, and a JSON text without it is `415`).
 */
let origin = '';
let authorization = '';

export function configureFetch(options: { baseUrl: string; token: string }): void {
  origin = options.baseUrl;
  authorization = `Bearer ${options.token}`;
}

export async function customFetch<T>(url: string, options: RequestInit): Promise<T> {
  const headers = new Headers(options.headers);
  headers.set('authorization', authorization);
  if (typeof options.body === 'string' && !headers.has('content-type'))
    headers.set('content-type', 'application/json');
  const res = await fetch(`${origin}${url}`, { ...options, headers });
  const text = [204, 205, 304].includes(res.status) ? '' : await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('json');
  const data = text ? (json ? JSON.parse(text) : text) : {};
  return { data, status: res.status, headers: res.headers } as T;
}
