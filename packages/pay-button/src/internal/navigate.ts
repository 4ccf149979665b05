/**
 * The one place the element makes the whole page leave (the full-page flow). Kept as a mutable
 * object so that tests can watch a redirect without losing the test page.
 */
export const navigation = {
  go(url: string): void {
    location.assign(url);
  },
};
