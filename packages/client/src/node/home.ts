import { homedir } from "node:os";
import { posix, win32 } from "node:path";

export interface HomeEnv {
  SVC_HOME?: string | undefined;
  XDG_DATA_HOME?: string | undefined;
  APPDATA?: string | undefined;
}

/**
 * Where the key store lives without `--home`: `$SVC_HOME`, else the per-user data directory
 * (`$XDG_DATA_HOME/svc` or `~/.local/share/svc`; `%APPDATA%\svc` on Windows).
 */
export function defaultHome(
  env: HomeEnv,
  platform: NodeJS.Platform = process.platform,
  userHome: string = homedir(),
): string {
  if (env.SVC_HOME) return env.SVC_HOME;
  if (platform === "win32") {
    return win32.join(env.APPDATA || win32.join(userHome, "AppData", "Roaming"), "svc");
  }
  // The XDG spec says to ignore a relative $XDG_DATA_HOME.
  const xdg = env.XDG_DATA_HOME?.startsWith("/") ? env.XDG_DATA_HOME : undefined;
  return posix.join(xdg ?? posix.join(userHome, ".local", "share"), "svc");
}
