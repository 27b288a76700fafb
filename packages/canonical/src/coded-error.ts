/**
 * The base of every package's one error class: `class XError extends CodedError<XErrorCode>`,
 * where the code is a stable string of the package's own union, the message is for people and
 * `cause` is the error underneath, if any. Callers branch on `instanceof` and `code`, never on
 * the message.
 */
export class CodedError<Code extends string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}
