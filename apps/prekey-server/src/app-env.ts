import type { RequestVariables } from "@svc/http";

export interface AppEnv {
  Variables: RequestVariables;
}
