/**
 * The five coordinator roles and what each held role satisfies (docs/protocol.md#roles).
 */

/** Every role, in the sorted order the wire reports them. */
export const ROLES = ['ADMIN', 'MEMBER', 'MONITOR', 'READ', 'WRITE'] as const;

/** A coordinator role. */
export type Role = (typeof ROLES)[number];

/** Held role → the required roles it satisfies. ADMIN satisfies everything, MEMBER included. */
const SATISFIES: Readonly<Record<Role, readonly Role[]>> = {
  ADMIN: ROLES,
  WRITE: ['WRITE', 'READ'],
  READ: ['READ'],
  MONITOR: ['READ'],
  MEMBER: ['MEMBER'],
};

/** True when `s` is a role name (upper case, exact). */
export function isRole(s: string): s is Role {
  return (ROLES as readonly string[]).includes(s);
}

/** True when any of the `held` roles satisfies `required`. */
export function grants(held: readonly Role[], required: Role): boolean {
  return held.some((r) => SATISFIES[r].includes(required));
}

/** Distinct roles in name order, as logins, tokens and the session view report them. */
export function sortRoles(roles: Iterable<Role>): Role[] {
  return [...new Set(roles)].sort();
}
