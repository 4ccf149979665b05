/**
 * @custom-elements-manifest/analyzer settings: Lit mode, the public source only, and a clean-up
 * that drops what is not API (private, protected and static members, events dispatched under a
 * variable name by the shared `emit` helper, which the JSDoc `@event` tags already document).
 */
export default {
  globs: ['src/**/*.ts'],
  exclude: ['src/react.ts', 'src/script-tag*.ts'],
  outdir: '.',
  litelement: true,
  packagejson: false,
  plugins: [
    {
      name: 'paybutton:public-api-only',
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
      },
    },
  ],
};
