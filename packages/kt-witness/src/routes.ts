import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Witness, WitnessAnswer } from "./witness.js";

/** The largest add-checkpoint body read, in bytes; a larger one is answered 413 unread. */
export const MAX_ADD_CHECKPOINT_BYTES = 256 * 1024;

const TEXT = "text/plain; charset=utf-8";
/** The media type of a 409 answer's body: the latest cosigned size and a newline. */
export const TLOG_SIZE_TYPE = "text/x.tlog.size";

/** What a request came to: the witness's answer, or a body refused before it. */
export type WitnessOutcome = WitnessAnswer | { status: 413; message: string };

export interface WitnessRoutesOptions {
  /** Called once per add-checkpoint request that was answered (for a log line). */
  onAnswer?: (outcome: WitnessOutcome) => void;
  /** Called with what made a request fail with 500 (the state could not be read or written). */
  onError?: (error: unknown) => void;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * `POST /add-checkpoint` and `GET /health` of a witness, to mount at its submission prefix
 * (`app.route("/prefix", witnessRoutes(witness))`). The body limit comes first: judged from
 * Content-Length, or counted while reading a chunked body.
 */
export function witnessRoutes(witness: Witness, options: WitnessRoutesOptions = {}): Hono {
  const app = new Hono();
  const answered = (outcome: WitnessOutcome) => options.onAnswer?.(outcome);

  app.get("/health", (c) => c.json({ status: "ok" }));

  app.post(
    "/add-checkpoint",
    bodyLimit({
      maxSize: MAX_ADD_CHECKPOINT_BYTES,
      onError: (c) => {
        const message = `the body is larger than ${MAX_ADD_CHECKPOINT_BYTES} bytes`;
        answered({ status: 413, message });
        return c.body(`${message}\n`, 413, { "content-type": TEXT });
      },
    }),
    async function addCheckpoint(c) {
      let body: string;
      try {
        body = strictUtf8.decode(await c.req.arrayBuffer());
      } catch {
        const answer: WitnessAnswer = { status: 400, message: "the body is not UTF-8" };
        answered(answer);
        return respond(answer);
      }
      const answer = await witness.add(body);
      answered(answer);
      return respond(answer);
    },
  );

  app.onError((error, c) => {
    options.onError?.(error);
    return c.body("internal error\n", 500, { "content-type": TEXT });
  });
  return app;
}

function respond(answer: WitnessAnswer): Response {
  if (answer.status === 200) {
    return new Response(answer.lines, { status: 200, headers: { "content-type": TEXT } });
  }
  if (answer.status === 409) {
    return new Response(`${answer.size}\n`, {
      status: 409,
      headers: { "content-type": TLOG_SIZE_TYPE },
    });
  }
  return new Response(`${answer.message}\n`, {
    status: answer.status,
    headers: { "content-type": TEXT },
  });
}
