import {
  BridgeEnvelope,
  ConsistencyResponse,
  DepositBody,
  DepositResponse,
  ERROR_CODES,
  type ErrorCode,
  errorName,
  errorStatus,
  FetchBody,
  FetchResponse,
  HealthResponse,
  InboxBlobItem,
  InboxRegisterBody,
  IndexProof,
  KeysCountResponse,
  KeysDeleteBody,
  KeysRegisterBody,
  KeysReplenishBody,
  KeysReplenishResponse,
  KtAbsenceProofBody,
  KtLeafProofBody,
  KtProofJson,
  LeavesResponse,
  LivenessResponse,
  LogIdResponse,
  ObserverSnapshot,
  OkResponse,
  OneTimePreKeyEntry,
  PollResponse,
  PreKeyBundle,
  PresenceEvent,
  PresenceSnapshot,
  ReadyResponse,
  ROUTES,
  type RouteContract,
  type RouteName,
  type RouteTag,
  SignedPayloadBody,
  SignedPreKeyEntry,
  SthResponse,
  VrfIndexResponse,
} from "@svc/protocol";
import { ChunkAck, ResumeState, TransferHealthResponse } from "@svc/protocol/transfer";
import { type ConversionConfig, toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import {
  ERROR_MEANINGS,
  INTRODUCTION,
  ROUTE_DESCRIPTIONS,
  SUMMARY,
  TAGS,
  TITLE,
} from "./overlay.js";

type Json = Record<string, unknown>;

/** The version of the interface (not of the packages): a change to the wire bumps it. */
export const INTERFACE_VERSION = "4.0.0";

/** The named schemas of the document (`#/components/schemas/<name>`). */
const COMPONENTS = {
  OkResponse,
  HealthResponse,
  LivenessResponse,
  ReadyResponse,
  ObserverSnapshot,
  KeysRegisterBody,
  KeysReplenishBody,
  KeysDeleteBody,
  SignedPreKeyEntry,
  OneTimePreKeyEntry,
  PreKeyBundle,
  KeysReplenishResponse,
  KeysCountResponse,
  SthResponse,
  LogIdResponse,
  VrfIndexResponse,
  ConsistencyResponse,
  LeavesResponse,
  IndexProof,
  KtLeafProofBody,
  KtAbsenceProofBody,
  KtProof: KtProofJson,
  InboxRegisterBody,
  SignedPayloadBody,
  DepositBody,
  FetchBody,
  InboxBlobItem,
  FetchResponse,
  DepositResponse,
  BridgeEnvelope,
  PollResponse,
  PresenceSnapshot,
  PresenceEvent,
  TransferHealthResponse,
  ChunkAck,
  ResumeState,
} satisfies Record<string, v.GenericSchema>;

const COMPONENT_NAMES = new Map<unknown, string>(
  Object.entries(COMPONENTS).map(([name, schema]) => [schema, name]),
);

/**
 * Conversion to JSON Schema 2020-12 (OpenAPI 3.1's dialect) with every component but `self`
 * referenced by name. A response object of the server holds exactly its declared members, so it
 * is closed (`additionalProperties: false`); a request body is a strict object, closed already.
 */
function conversion(self?: v.GenericSchema): ConversionConfig {
  return {
    target: "draft-2020-12",
    overrideSchema: ({ valibotSchema, jsonSchema }) => {
      const name = COMPONENT_NAMES.get(valibotSchema);
      if (name !== undefined && valibotSchema !== self) {
        return { $ref: `#/components/schemas/${name}` };
      }
      return valibotSchema.type === "object"
        ? { ...jsonSchema, additionalProperties: false }
        : undefined;
    },
  };
}

/** The JSON Schema of `schema`, named components referenced. */
function jsonSchema(schema: v.GenericSchema, self?: v.GenericSchema): Json {
  const { $schema: _, ...converted } = toJsonSchema(schema, conversion(self)) as Json;
  return converted;
}

function components(): Json {
  return Object.fromEntries(
    Object.entries(COMPONENTS).map(([name, schema]) => [name, jsonSchema(schema, schema)]),
  );
}

/**
 * The OpenAPI 3.1 document of every route of ROUTES (those marked `undocumented` left out), with
 * the prose of the overlay.
 */
export function generateOpenApi(): Json {
  const paths: Record<string, Json> = {};
  for (const [name, route] of Object.entries(ROUTES) as Array<[RouteName, RouteContract]>) {
    if (route.undocumented) continue;
    const item = paths[route.path] ?? {};
    paths[route.path] = item;
    if (route.server === "receiver") item.servers = RECEIVER_SERVERS;
    item[route.method.toLowerCase()] = operation(name, route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: TITLE,
      version: INTERFACE_VERSION,
      summary: SUMMARY,
      description: INTRODUCTION,
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [
      {
        url: "{base_url}",
        variables: {
          base_url: {
            default: "http://localhost:8080",
            description: "Base address of the service.",
          },
        },
      },
    ],
    tags: (Object.entries(TAGS) as Array<[RouteTag, string]>).map(([tag, description]) => ({
      name: tag,
      description,
    })),
    "x-error-codes": ERROR_CODES.map((code) => ({ code, meaning: ERROR_MEANINGS[code] })),
    security: [],
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      headers: {
        RetryAfter: {
          description: "Whole seconds (>= 1) until a retry may succeed.",
          required: true,
          schema: { type: "integer", minimum: 1 },
        },
      },
      responses: {
        UnknownRoute: {
          description: "Any request to an undocumented route (`SVC_NOT_FOUND`).",
          content: { "application/json": { schema: errorSchema(404, ["SVC_NOT_FOUND"], {}) } },
        },
      },
      schemas: components(),
    },
  };
}

const RECEIVER_SERVERS = [
  {
    url: "{receiver}",
    description: "A transfer receiver (`svc transfer receive`), not the prekey server.",
    variables: { receiver: { default: "http://localhost:8090" } },
  },
];

const SECURITY_SCHEMES = {
  observerBearer: {
    type: "http",
    scheme: "bearer",
    description: "`Authorization: Bearer <token>` with the value of `SVC_OBSERVER_TOKEN`.",
  },
  observerQueryToken: {
    type: "apiKey",
    in: "query",
    name: "token",
    description: "The observer token as query parameter, for SSE clients that cannot set headers.",
  },
};

function operation(name: RouteName, route: RouteContract): Json {
  const op: Json = { tags: [route.tag], operationId: name, summary: route.summary };
  const description = ROUTE_DESCRIPTIONS[name];
  if (description !== undefined) op.description = description;
  if (route.auth === "observer-token") {
    op.security =
      route.query === undefined
        ? [{ observerBearer: [] }]
        : [{ observerBearer: [] }, { observerQueryToken: [] }];
  }
  const parameters = [
    ...parametersOf("path", route.params),
    ...parametersOf("query", route.query, route.auth === "observer-token" ? ["token"] : []),
    ...parametersOf("header", route.headers),
  ];
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body !== undefined) {
    op.requestBody = {
      required: true,
      content: { "application/json": { schema: jsonSchema(route.body) } },
    };
  } else if (route.binaryBody) {
    op.requestBody = {
      required: true,
      content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
    };
  }
  op.responses = { ...success(route), ...errorResponses(route) };
  return op;
}

function parametersOf(
  where: "path" | "query" | "header",
  schema: v.ObjectSchema<v.ObjectEntries, undefined> | undefined,
  skip: string[] = [],
): Json[] {
  if (schema === undefined) return [];
  return Object.entries(schema.entries)
    .filter(([name]) => !skip.includes(name))
    .map(([name, entry]) => {
      const { description, ...converted } = jsonSchema(entry);
      const parameter: Json = { name, in: where, required: entry.type !== "optional" };
      if (description !== undefined) parameter.description = description;
      parameter.schema = converted;
      return parameter;
    });
}

function success(route: RouteContract): Json {
  if (route.response !== undefined) {
    const content = { "application/json": { schema: jsonSchema(route.response) } };
    const answers: Json = { "200": { description: route.summary, content } };
    if (route.unhealthy) answers["503"] = { description: "Not healthy or not ready.", content };
    return answers;
  }
  switch (route.answer) {
    case "websocket":
      return { "101": { description: "Switching protocols to WebSocket." } };
    case "redirect":
      return {
        "301": {
          description: "The page is at the same path with a trailing `/`.",
          headers: { Location: { required: true, schema: { type: "string" } } },
        },
      };
    case undefined:
      throw new TypeError(`${route.method} ${route.path} has neither a response nor an answer`);
    default:
      return {
        "200": {
          description: route.summary,
          content: { [route.answer]: { schema: { type: "string" } } },
        },
      };
  }
}

/** One response per error status, its body naming exactly the codes answered with it. */
function errorResponses(route: RouteContract): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of route.errors) {
    const status = errorStatus(route, code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Json = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const response: Json = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_MEANINGS[code]}`).join("\n"),
      content: {
        "application/json": { schema: errorSchema(status, codes, route.errorMembers ?? {}) },
      },
    };
    if (status === 429 || status === 507) {
      response.headers = { "Retry-After": { $ref: "#/components/headers/RetryAfter" } };
    }
    responses[String(status)] = response;
  }
  return responses;
}

/**
 * An ErrorResponse of `status` carrying one of `codes`, with the members the route adds to some
 * of them: one closed object per set of members (`oneOf` when the codes differ in them).
 */
function errorSchema(
  status: number,
  codes: ErrorCode[],
  members: NonNullable<RouteContract["errorMembers"]>,
): Json {
  const groups = new Map<v.ObjectEntries, ErrorCode[]>();
  const none: v.ObjectEntries = {};
  for (const code of codes) {
    const entries = members[code] ?? none;
    groups.set(entries, [...(groups.get(entries) ?? []), code]);
  }
  const variants = [...groups].map(([entries, grouped]) =>
    jsonSchema(
      v.object({
        name: v.literal(errorName(status)),
        code: v.picklist(grouped),
        message: v.string(),
        ...entries,
      }),
    ),
  );
  return variants.length === 1 ? (variants[0] as Json) : { oneOf: variants };
}
