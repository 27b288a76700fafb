/**
 * The exit statuses of every svc command, svc transfer, svc kt and svc db included: the one table
 * that `svc --help` and docs/cli.md ("Exit status") list. A number means the same thing
 * everywhere but 3, a check that failed: a key-transparency one, or (svc db move) the move's.
 */
export const EXIT = {
  ok: 0,
  /**
   * The server, a peer or the log refused or could not be reached, the key store or a file
   * could not be used, a port was in use, a witness could not start, a move failed.
   */
  failure: 1,
  usage: 2,
  /**
   * A key-transparency proof or log check did not verify (or the server serves no log), or a
   * peer's bundle lacks the ML-KEM prekey its log leaf or its history says it has (PQ_DOWNGRADE),
   * or an account's device list does not verify (DEVICE_LIST_INVALID), or a link code was refused
   * (LINK_REFUSED).
   */
  verification: 3,
  /** svc db move refused to begin or to commit (nothing was written). */
  refused: 3,
  /** listen --timeout passed first, or no device linked in time (LINK_TIMEOUT). */
  timeout: 4,
  /** No identity in the home, or init over an existing one. */
  identity: 5,
  /** A peer's identity keys are not the ones trusted here (IDENTITY_CHANGED): svc trust decides. */
  identityChanged: 6,
  /**
   * svc transfer send, or a link's wait, stopped by SIGINT or SIGTERM (128 plus SIGINT's number, the status shells
   * give a command interrupted by Ctrl-C); the next run resumes it.
   */
  interrupted: 130,
} as const;
