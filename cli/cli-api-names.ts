/**
 * The API's names in a refusal, as the CLI user typed them: the coordinator's messages name
 * body fields and query parameters (`targetShardCount: must be at most 64`, `pass force=true`),
 * which a CLI user never wrote. Each maps to the CLI's flag or argument of the same meaning.
 */

/** Body fields and query parameters by the CLI's name for them. */
const FIELD_FLAGS: Readonly<Record<string, string>> = {
  targetShardCount: '<n>',
  initialShardCount: '--shards',
  consumerGroup: '--group',
  requestedBy: '--requested-by',
  reason: '--reason',
  mode: '--mode',
  shards: '--shards',
  to: '--to',
  timestamp: '--to',
  id: '--to',
};

/** Names distinctive enough to map wherever they stand in the prose (`omit initialShardCount`). */
const ANYWHERE = ['targetShardCount', 'initialShardCount', 'requestedBy'];

/**
 * `detail` with the API's names replaced by the CLI's: a field at the head of a problem
 * (`shards[1]: …`, problems joined by `; `), the distinctive ones anywhere, and `force=true`.
 */
export function asFlags(detail: string): string {
  return detail
    .replace(/\bforce=true\b/g, '--force')
    .replace(/(^|; )([A-Za-z]+)((?:\[\d+\])?):/g, (whole, head: string, field: string, index: string) => {
      const flag = Object.hasOwn(FIELD_FLAGS, field) ? FIELD_FLAGS[field] : undefined;
      return flag ? `${head}${flag}${index}:` : whole;
    })
    .replace(new RegExp(`\\b(${ANYWHERE.join('|')})\\b`, 'g'), (name) => FIELD_FLAGS[name] ?? name);
}
