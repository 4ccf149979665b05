/** @type {import('next').NextConfig} */
export default {
  serverExternalPackages: ['@tombolbayar/server'],
};
