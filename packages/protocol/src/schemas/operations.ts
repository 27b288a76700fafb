import * as v from "valibot";
import { ERROR_CODES } from "../errors.js";

export const HealthResponse = v.object({
  status: v.picklist(["ok", "error"]),
  service: v.string(),
});

export const ErrorResponseSchema = v.looseObject({
  name: v.string(),
  code: v.picklist(ERROR_CODES),
  message: v.string(),
});
