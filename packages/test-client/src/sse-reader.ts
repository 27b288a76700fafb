export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

/** Reads an event stream incrementally: events, and comment lines (e.g. `: ping`). */
export class SseReader {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  #buffer = "";
  #closed = false;
  readonly done: Promise<void>;

  constructor(readonly response: Response) {
    const body = response.body;
    if (!body) throw new Error("no body");
    this.done = this.#read(body.pipeThrough(new TextDecoderStream()).getReader());
  }

  get closed(): boolean {
    return this.#closed;
  }

  async #read(reader: ReadableStreamDefaultReader<string>): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#buffer += value;
        let end = this.#buffer.indexOf("\n\n");
        while (end !== -1) {
          this.#parse(this.#buffer.slice(0, end));
          this.#buffer = this.#buffer.slice(end + 2);
          end = this.#buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted by the test
    } finally {
      this.#closed = true;
    }
  }

  #parse(block: string): void {
    const event: SseEvent = { event: "message", data: "" };
    let isEvent = false;
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        this.comments.push(line);
        continue;
      }
      const colon = line.indexOf(": ");
      const [field, value] =
        colon === -1 ? [line, ""] : [line.slice(0, colon), line.slice(colon + 2)];
      isEvent = true;
      if (field === "event") event.event = value;
      else if (field === "id") event.id = value;
      else if (field === "data") event.data = value;
    }
    if (isEvent) this.events.push(event);
  }

  /** Parsed `data:` of every event named `name`. */
  data<T = Record<string, unknown>>(name: string): T[] {
    return this.events.filter((e) => e.event === name).map((e) => JSON.parse(e.data) as T);
  }
}
