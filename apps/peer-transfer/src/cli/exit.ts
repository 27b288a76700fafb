import { EXIT } from "@svc/cli/kit";

/**
 * svc-transfer's exit statuses: svc's, and 130 for a send stopped by SIGINT or SIGTERM (128 plus
 * SIGINT's number, the status shells give a command interrupted by Ctrl-C).
 */
export const TRANSFER_EXIT = { ...EXIT, interrupted: 130 } as const;
