import * as v from "valibot";
import { ERROR_CODES } from "../errors.js";

export const HealthResponse = v.object({
  status: v.picklist(["ok", "error"]),
  service: v.string(),
});

export const LivenessResponse = v.object({ status: v.literal("ok") });

const check = v.picklist(["ok", "error", "disabled"]);

/** 200 when every backend is ready, 503 (same shape) when one is not. */
export const ReadyResponse = v.object({
  status: v.picklist(["ok", "error"]),
  checks: v.object({ storage: v.picklist(["ok", "error"]), inbox: check, kt: check }),
});

export const ErrorResponseSchema = v.looseObject({
  name: v.string(),
  code: v.picklist(ERROR_CODES),
  message: v.string(),
});
