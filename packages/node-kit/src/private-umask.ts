import { isMainThread } from "node:worker_threads";

/**
 * Sets the process's umask to 077, so that every file and directory it creates from here on is
 * its user's alone, whatever the umask it was started with: the svc servers call it first. The
 * files svc writes itself have explicit modes; this covers those another library writes (the
 * embedded database's). Only the main thread may set the umask: elsewhere this does nothing.
 */
export function usePrivateUmask(): void {
  if (isMainThread) process.umask(0o077);
}
