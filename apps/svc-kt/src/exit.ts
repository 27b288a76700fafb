/** Exit statuses of `svc-kt` (1 is "unreachable" for the monitor, "cannot start" for a witness). */
export const EXIT = { ok: 0, unreachable: 1, cannotStart: 1, usage: 2, verification: 3 } as const;
