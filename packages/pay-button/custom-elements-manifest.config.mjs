/**
 * @custom-elements-manifest/analyzer settings: Lit mode, the public source only, and a clean-up
 * that drops what is not API (private, protected and static members, events dispatched under a
 * variable name by the shared `emit` helper, which the JSDoc `@event` tags already document), and
 * module paths that name the shipped JavaScript (`dist/x.js`), since the tarball has no `src/`.
 */

/** `src/x.ts` (or `/src/x.ts`, `./x.ts`) as the package ships it: `dist/x.js` (`./x.js`). */
const shipped = (path) => path.replace(/^\/?src\//, 'dist/').replace(/\.ts$/, '.js');

/** Every `path` and `module` string in the manifest, rewritten by `shipped`. */
function pointAtDist(node) {
  if (Array.isArray(node)) return node.forEach(pointAtDist);
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'path' || key === 'module') && typeof value === 'string') node[key] = shipped(value);
    else pointAtDist(value);
  }
}

export default {
  globs: ['src/**/*.ts'],
  exclude: ['src/react.ts', 'src/script-tag*.ts'],
  outdir: '.',
  litelement: true,
  packagejson: false,
  plugins: [
    {
      name: 'tombolbayar:public-api-only',
      packageLinkPhase({ customElementsManifest }) {
        for (const mod of customElementsManifest.modules) {
          for (const declaration of mod.declarations ?? []) {
            declaration.members = declaration.members?.filter(
              (m) => !m.name.startsWith('#') && m.privacy !== 'private' && m.privacy !== 'protected' && !m.static && m.name !== 'strings',
            );
            declaration.events = declaration.events?.filter((e) => e.description);
            // The abstract base (PayElement) is no element of its own; its members are listed, as
            // inherited, on both elements.
            if (declaration.customElement && !declaration.tagName) delete declaration.customElement;
          }
        }
        pointAtDist(customElementsManifest);
      },
    },
  ],
};
