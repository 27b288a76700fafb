/** A fetch that lets a test watch or rewrite what passes between a client and its server. */
export type FetchHook = (
  request: { method: string; url: URL; body: string | undefined },
  forward: () => Promise<Response>,
) => Promise<Response>;

export function hookedFetch(hook: FetchHook): typeof fetch {
  return (input, init) => {
    const url = new URL(String(input));
    const body = typeof init?.body === "string" ? init.body : undefined;
    return hook({ method: init?.method ?? "GET", url, body }, () => fetch(input, init));
  };
}

/** A JSON answer with another body. */
export async function rewriteJson(
  response: Response,
  rewrite: (json: Record<string, unknown>) => Record<string, unknown>,
): Promise<Response> {
  const json = (await response.json()) as Record<string, unknown>;
  return new Response(JSON.stringify(rewrite(json)), {
    status: response.status,
    headers: { "content-type": "application/json" },
  });
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
