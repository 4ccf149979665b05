/**
 * Guarded registration. A page may load the element twice (the script tag and an npm copy, or two
 * versions): the first definition wins, and a different second class logs a warning instead of
 * throwing `NotSupportedError`.
 */
export function define(tag: string, element: CustomElementConstructor): void {
  const existing = customElements.get(tag);
  if (!existing) customElements.define(tag, element);
  else if (existing !== element) console.warn('paybutton: keeping the first', tag);
}
