/** The part of pngjs the e2e suite uses (it ships no types). */
declare module 'pngjs' {
  export const PNG: { sync: { read(buffer: Buffer): { width: number; height: number; data: Buffer } } };
}
