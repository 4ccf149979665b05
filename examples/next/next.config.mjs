/** @type {import('next').NextConfig} */
export default {
  // The plug-in reads its own files (the element's script) and opens a SQLite file: it runs from
  // node_modules as installed, not bundled.
  serverExternalPackages: ['@tombolbayar/express'],
};
