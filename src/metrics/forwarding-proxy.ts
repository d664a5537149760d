/**
 * A proxy that answers some methods itself and forwards everything else to the wrapped object
 * (bound to it), so an instrumented port keeps every method it gains later.
 */

/** `target` with `overrides` in front; other methods are bound once and reused. */
export function forwardingProxy<T extends object>(target: T, overrides: Partial<T>): T {
  const bound = new Map<PropertyKey, { original: unknown; fn: unknown }>();
  return new Proxy(target, {
    get(t, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof T];
      const v: unknown = Reflect.get(t, prop, t);
      if (typeof v !== 'function') return v;
      // Bind once per method (re-bound if the target's method is replaced): hot paths such as
      // every heartbeat should not allocate a function per call.
      const cached = bound.get(prop);
      if (cached?.original === v) return cached.fn;
      const fn = v.bind(t);
      bound.set(prop, { original: v, fn });
      return fn;
    },
  });
}
