// npm run db:generate — rewrites both schema variants and regenerates both clients.
import { ensurePrismaClients } from "./setup.mjs";

ensurePrismaClients({ force: true });
