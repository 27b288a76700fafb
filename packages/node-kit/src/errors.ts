import { CodedError } from "@svc/canonical";

/** Stable codes of {@link ConfigError}. */
export type ConfigErrorCode =
  /** An environment variable, or a key file it names, that is missing or not what it must be. */
  "CONFIG";

/**
 * The one error class of @svc/node-kit: every problem of a server's environment at once (in
 * `problems`, one line each); the server prints it and exits 2.
 */
export class ConfigError extends CodedError<ConfigErrorCode> {
  override readonly name = "ConfigError";

  constructor(readonly problems: string[]) {
    super("CONFIG", `invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}
