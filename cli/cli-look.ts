/**
 * How the CLI's human output looks (docs/cli.md#colour): `-o wide` columns, and colour on status
 * words only (green when settled, yellow while changing, red when lost), decided by NO_COLOR,
 * FORCE_COLOR and whether the stream is a terminal. Colour goes through Node's `util.styleText`;
 * the decision is ours, so it holds on every Node 20 (styleText itself checks the stream only
 * from 20.18, and is missing before 20.12, where the output stays plain).
 */
import * as util from 'node:util';

/** A colour the CLI uses. */
type Colour = 'green' | 'yellow' | 'red';

/** Colouring of the words that say how things stand; identity when colour is off. */
export interface Paint {
  /** A state word of `kind` (`ACTIVE` of a member, `STABLE` of a group…) in its colour. */
  status(word: string, kind: StatusKind): string;
  /** `text` in `colour`. */
  colour(text: string, colour: Colour): string;
}

/** What a status word belongs to: `ACTIVE` is settled for a member, under way for a migration. */
type StatusKind = 'member' | 'group' | 'migration' | 'removed-shard';

const STATUS_COLOURS: Readonly<Record<StatusKind, Readonly<Record<string, Colour>>>> = {
  member: { ACTIVE: 'green', STARTING: 'yellow', LEAVING: 'yellow', EXPIRED: 'red', FENCED: 'red' },
  group: { STABLE: 'green', ASSIGNING: 'yellow', RECONCILING: 'yellow' },
  migration: {
    PREPARING: 'yellow',
    ACTIVE: 'yellow',
    DRAINING: 'yellow',
    ROLLING_BACK: 'yellow',
    DEPRECATED: 'green',
  },
  'removed-shard': { DRAINING: 'yellow', DRAINED: 'green', RETIRING: 'green', RETIRED: 'green' },
};

/**
 * Whether to colour a stream: FORCE_COLOR decides when set (`0`/`false` off, anything else on,
 * winning over NO_COLOR as Node's own streams do), then a non-empty NO_COLOR (no-color.org) or
 * TERM=dumb turns colour off, and otherwise only a terminal gets it.
 */
export function colorEnabled(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR) return false;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

/** `util.styleText` where this Node has it (20.12+). */
const styleText = (util as { styleText?: typeof util.styleText }).styleText;

function paintIn(colour: Colour, text: string): string {
  if (!styleText) return text;
  // Our decision stands: newer Node would otherwise re-check process.stdout and its env itself.
  return styleText(colour, text, { validateStream: false });
}

/** Colouring on (`true`) or off. */
export function paint(enabled: boolean): Paint {
  if (!enabled) return { status: (word) => word, colour: (text) => text };
  return {
    status: (word, kind) => {
      const colour = STATUS_COLOURS[kind][word];
      return colour ? paintIn(colour, word) : word;
    },
    colour: (text, colour) => paintIn(colour, text),
  };
}

/** How a human view is drawn: the wide columns or not, and the paint for its status words. */
export interface Look {
  wide: boolean;
  paint: Paint;
}

/** Plain narrow tables (tests, and views printed where colour is off). */
export const PLAIN: Look = { wide: false, paint: paint(false) };
