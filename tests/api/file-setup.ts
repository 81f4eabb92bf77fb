import { beforeAll } from "vitest";
import { resetCrm } from "./proposals-helpers";

// Each API test file starts with CRM Acme as seeded (C-1842 at version 17, no
// faults), whatever the file before it left: files share one stack, and a
// preview compares with the CRM's current state (one that changes nothing
// makes no proposal).
beforeAll(resetCrm);
