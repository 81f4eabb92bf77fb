/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // Parallel builds (several engineers or CI jobs in one checkout) each use their own folder.
  distDir: process.env.GUICHET_DIST_DIR ?? ".next",
  // Native and server-only packages stay out of the bundle.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "ioredis"],
  // `npm test` type-checks the whole tree (tsc --noEmit) as its own step; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
