import { Agent, request } from "node:http";

export interface HttpAnswer {
  status: number;
  body: string;
}

/**
 * A keep-alive node:http client for load generation. It costs a fraction of the CPU of
 * `fetch` (undici with web streams), which matters when the load generator shares the machine's
 * two cores with the server it measures.
 */
export function createHttpClient(baseUrl: string, maxSockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const send = (method: string, path: string, body?: string) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const req = request(`${baseUrl}${path}`, { method, agent }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", reject);
      });
      req.on("error", reject);
      if (body !== undefined) req.setHeader("content-type", "application/json");
      req.end(body);
    });
  return {
    get: (path: string) => send("GET", path),
    post: (path: string, body: string) => send("POST", path, body),
    close: () => agent.destroy(),
  };
}

export type HttpClient = ReturnType<typeof createHttpClient>;
