/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // Native and server-only packages stay out of the bundle.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "ioredis"],
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
