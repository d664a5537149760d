/**
 * Building the page: `h(tag, attrs, children)` and `fill(el, children)`. Every user- or
 * server-supplied value reaches the page as a text node or an attribute, never as markup.
 */

/** What `h` and `fill` accept as content: nodes, text, nothing, or lists of those. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** Attribute values; `on…` keys take listeners, `class` and `text` are shortcuts. */
export type Attrs = Record<string, string | number | boolean | null | undefined | ((ev: Event) => void)>;

/** Appends `children` to `el` (text as text nodes). */
export function append(el: Node, children: Child): void {
  if (children === null || children === undefined || children === false) return;
  if (Array.isArray(children)) {
    for (const c of children as readonly Child[]) append(el, c);
    return;
  }
  el.appendChild(children instanceof Node ? children : document.createTextNode(String(children)));
}

/** A new element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  children?: Child,
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const k of Object.keys(attrs)) {
      const v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (typeof v === 'function') {
        if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
      } else if (k === 'class') el.className = String(v);
      else if (k === 'text') el.textContent = String(v);
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    }
  }
  append(el, children ?? null);
  return el;
}

/** Replaces the content of `el` with `children`. */
export function fill<E extends Node>(el: E, children: Child): E {
  el.textContent = '';
  append(el, children);
  return el;
}
