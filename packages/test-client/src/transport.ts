/** What every transport answers: a fetch `Response`, or the bench's lighter socket answer. */
export interface Answer {
  readonly status: number;
  text(): Promise<string>;
}

/**
 * One way to send a request: Hono's `app.request` in process, fetch to a base URL, or the
 * bench's keep-alive sockets (`@svc/test-client/node`). Paths start at `/v1/...`.
 */
export type Transport<A extends Answer = Response> = (
  path: string,
  init: RequestInit,
) => A | Promise<A>;

/** A request built (and signed) ahead of sending it, e.g. before a benchmark's clock starts. */
export interface PreparedRequest {
  method: string;
  path: string;
  body?: string;
}

/** The app itself, without a server: anything with Hono's `request(path, init)`. */
export function inProcess(app: {
  request(path: string, init: RequestInit): Response | Promise<Response>;
}): Transport {
  return (path, init) => app.request(path, init);
}

/** A listening server at `baseUrl` (no trailing slash), through the global fetch. */
export function overHttp(baseUrl: string): Transport {
  return (path, init) => fetch(`${baseUrl}${path}`, init);
}

export function send<A extends Answer>(
  transport: Transport<A>,
  { method, path, body }: PreparedRequest,
): A | Promise<A> {
  return transport(path, body === undefined ? { method } : jsonRequest(method, body));
}

/** A JSON request; `body` goes as given when it is already a string (e.g. deliberately bad). */
export function jsonRequest(method: string, body: unknown): RequestInit {
  return {
    method,
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}
