/** The exit statuses of `svc`, as its --help lists them. */
export const EXIT = {
  ok: 0,
  /** The server refused or could not be reached, or the key store could not be used. */
  failure: 1,
  usage: 2,
  /** A key-transparency proof did not verify (or the server serves none). */
  verification: 3,
  /** listen --timeout passed first. */
  timeout: 4,
  /** No identity in the home, or init over an existing one. */
  identity: 5,
  /** A peer's identity keys are not the ones trusted here (IDENTITY_CHANGED): svc trust decides. */
  identityChanged: 6,
} as const;
