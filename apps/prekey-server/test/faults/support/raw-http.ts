import { request } from "node:http";

/** How a response ended: complete, or cut off (reset, aborted) with what came before. */
export interface RawAnswer {
  status: number;
  body: string;
  /** "complete": the whole message arrived; "cut": the connection ended inside it. */
  ending: "complete" | "cut";
  /** performance.now() when it ended. */
  endedAt: number;
}

/**
 * One request on a connection of its own (no keep-alive pool), with the body written in
 * `pieces` over `overMs`: a client on a slow link. A connection that failed before any response
 * is status 0, "cut", with the error as its body.
 */
export function slowRequest(
  url: string,
  method: string,
  body: string,
  options: { pieces?: number; overMs?: number } = {},
): { answer: Promise<RawAnswer>; sent: Promise<void> } {
  const pieces = options.pieces ?? 1;
  const overMs = options.overMs ?? 0;
  const bytes = Buffer.from(body);
  const req = request(url, {
    method,
    agent: false,
    headers: { "content-type": "application/json", "content-length": bytes.length },
  });
  const answer = new Promise<RawAnswer>((resolve) => {
    req.once("error", (error) =>
      resolve({ status: 0, body: error.message, ending: "cut", endedAt: performance.now() }),
    );
    req.once("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      const finish = (ending: RawAnswer["ending"]) =>
        resolve({ status: res.statusCode ?? 0, body: text, ending, endedAt: performance.now() });
      res.once("end", () => finish(res.complete ? "complete" : "cut"));
      res.once("aborted", () => finish("cut"));
      res.once("error", () => finish("cut"));
    });
  });
  const sent = (async () => {
    const size = Math.ceil(bytes.length / pieces);
    for (let at = 0; at < bytes.length; at += size) {
      req.write(bytes.subarray(at, at + size));
      if (at + size < bytes.length) await new Promise((r) => setTimeout(r, overMs / pieces));
    }
    req.end();
  })();
  return { answer, sent };
}

/**
 * A GET whose response is read as it comes (an SSE stream): its text so far, and how it ended.
 */
export function streamingGet(url: string): {
  text: () => string;
  status: Promise<number>;
  ended: Promise<RawAnswer>;
  destroy: () => void;
} {
  let text = "";
  const req = request(url, { agent: false });
  let resolveStatus: (status: number) => void = () => {};
  const status = new Promise<number>((resolve) => {
    resolveStatus = resolve;
  });
  const ended = new Promise<RawAnswer>((resolve) => {
    req.once("error", () =>
      resolve({ status: 0, body: text, ending: "cut", endedAt: performance.now() }),
    );
    req.once("response", (res) => {
      resolveStatus(res.statusCode ?? 0);
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      const finish = (ending: RawAnswer["ending"]) =>
        resolve({ status: res.statusCode ?? 0, body: text, ending, endedAt: performance.now() });
      res.once("end", () => finish(res.complete ? "complete" : "cut"));
      res.once("aborted", () => finish("cut"));
      res.once("error", () => finish("cut"));
    });
  });
  req.end();
  return { text: () => text, status, ended, destroy: () => req.destroy() };
}
