/**
 * Guarded registration. A page may load the element twice (the script tag and an npm copy, or two
 * versions): the first definition wins. The same class again is a no-op; any other refusal of
 * `customElements.define` (another class under the tag, a tag that is not a valid name) logs the
 * browser's own error as a warning instead of throwing.
 */
export function define(tag: string, element: CustomElementConstructor): void {
  if (customElements.get(tag) !== element) {
    try {
      customElements.define(tag, element);
    } catch (error) {
      console.warn(error);
    }
  }
}
