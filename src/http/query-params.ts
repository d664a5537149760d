/**
 * Query parameters as declared once, with the route: name, documentation and the zod schema that
 * parses the raw value. Handlers read them with `queryValue(c, param)` — in the order the
 * protocol checks them (a blank Grafana name answers `[]` before the other parameters are looked
 * at), each failure a 400 INVALID_REQUEST worded `name: reason` as before.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import type { GroupPosition } from '../coordinator-api.js';
import type { RangeDirection } from '../store/inspector.js';
import { describeIssues, invalidRequest } from './errors.js';
import { decodeGroupCursor } from './group-cursor.js';
import { consumerGroupSchema, streamPrefixSchema } from './schemas.js';
import { NOT_A_STREAM_ID, normalizeStreamId } from './stream-id.js';

/** Default and bounds of a message page (docs/protocol.md#monitoring-views: clamped, never rejected). */
const DEFAULT_PAGE_LIMIT = 25;
/** Largest message page. */
const MAX_PAGE_LIMIT = 1000;

/** A declared query parameter: documentation, and the schema of its raw value (undefined when absent). */
export interface QueryParam<T = unknown> {
  name: string;
  description: string;
  /** Documented as required (Grafana always sends it, possibly blank). */
  required?: boolean;
  /** JSON Schema of the raw value in the document. @default {type: 'string'} */
  schema?: Record<string, unknown>;
  /** Parses the raw value; issues become `name: message`. */
  parse: z.ZodType<T, string | undefined>;
}

/** The value of `param` in the request, parsed by its declared schema (400 when it does not parse). */
export function queryValue<T>(c: Context, param: QueryParam<T>): T {
  const r = param.parse.safeParse(c.req.query(param.name));
  if (!r.success) throw invalidRequest(describeIssues(r.error.issues, param.name));
  return r.data;
}

/** Trimmed, null when absent or blank. */
const text = z
  .string()
  .optional()
  .transform((v) => v?.trim() || null);

/** A parser: trimmed text, null when blank, else `parse(value)` or an issue with `message`. */
function textThen<T>(parse: (v: string) => T | undefined, message: string, blank: T) {
  return text.transform((v, ctx): T => {
    if (v === null) return blank;
    const out = parse(v);
    if (out !== undefined) return out;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
}

/** `direction`: FORWARD or BACKWARD (any case); blank → BACKWARD. */
export const directionParam: QueryParam<RangeDirection> = {
  name: 'direction',
  description: 'BACKWARD (newest first, default) or FORWARD',
  schema: { type: 'string', enum: ['BACKWARD', 'FORWARD'], default: 'BACKWARD' },
  parse: textThen<RangeDirection>(
    (v) => {
      const up = v.toUpperCase();
      return up === 'FORWARD' || up === 'BACKWARD' ? up : undefined;
    },
    'must be FORWARD or BACKWARD',
    'BACKWARD',
  ),
};

/** `limit`: an integer clamped to 1..1000; blank → 25. */
export const limitParam: QueryParam<number> = {
  name: 'limit',
  description: 'page size, clamped to 1..1000',
  schema: { type: 'integer', default: DEFAULT_PAGE_LIMIT },
  parse: textThen(
    (v) => (/^[+-]?\d+$/.test(v) ? Math.min(MAX_PAGE_LIMIT, Math.max(1, Number(v))) : undefined),
    'must be an integer',
    DEFAULT_PAGE_LIMIT,
  ),
};

/** Largest page of a group list, and its size when `limit` is absent (docs/protocol.md#listing-groups-in-pages). */
const MAX_GROUP_PAGE = 1000;

/** `limit` of a group list: an integer from 1 to 1000, refused otherwise; absent or blank → 1000. */
export const groupLimitParam: QueryParam<number> = {
  name: 'limit',
  description: `groups per page, 1..${MAX_GROUP_PAGE} (absent: ${MAX_GROUP_PAGE}); any other value answers 400`,
  schema: { type: 'integer', minimum: 1, maximum: MAX_GROUP_PAGE, default: MAX_GROUP_PAGE },
  parse: textThen(
    (v) => (/^\d{1,9}$/.test(v) && Number(v) >= 1 && Number(v) <= MAX_GROUP_PAGE ? Number(v) : undefined),
    `must be an integer from 1 to ${MAX_GROUP_PAGE}`,
    MAX_GROUP_PAGE,
  ),
};

/** `cursor` of a group list: the previous page's `nextCursor`; absent or blank → the first page. */
export const groupCursorParam: QueryParam<GroupPosition | null> = {
  name: 'cursor',
  description: "the previous page's nextCursor, passed back unchanged (absent: the first page)",
  parse: textThen<GroupPosition | null>(
    decodeGroupCursor,
    'is not a cursor of this list; start again without one',
    null,
  ),
};

/** A stream id parameter normalised to `ms-seq`; null when blank. */
export function streamIdParam(name: string, description: string): QueryParam<string | null> {
  return {
    name,
    description,
    parse: textThen<string | null>((v) => normalizeStreamId(v) ?? undefined, NOT_A_STREAM_ID, null),
  };
}

/** A free-text parameter (trimmed; null when blank) the route interprets itself. */
export function textParam(name: string, description: string): QueryParam<string | null> {
  return { name, description, parse: text };
}

/**
 * A Grafana name parameter: null when blank (the protocol answers `[]` or widens the scope), a
 * 400 when missing altogether and `required`, or when it is not a valid name.
 */
export function grafanaNameParam(
  name: 'streamPrefix' | 'consumerGroup',
  required: boolean,
  description: string,
): QueryParam<string | null> {
  const valid = name === 'streamPrefix' ? streamPrefixSchema : consumerGroupSchema;
  return {
    name,
    description,
    required,
    parse: z
      .string()
      .optional()
      .transform((raw, ctx): string | null => {
        if (raw === undefined) {
          if (!required) return null;
          ctx.addIssue({ code: 'custom', message: 'is required' });
          return z.NEVER;
        }
        if (raw.trim() === '') return null;
        const r = valid.safeParse(raw);
        if (r.success) return r.data;
        for (const issue of r.error.issues)
          ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
        return z.NEVER;
      }),
  };
}
