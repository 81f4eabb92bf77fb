import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";

export const EndedSessionsObject = z.object({
  ended_sessions: z
    .number()
    .int()
    .min(0)
    .meta({ description: "How many of your sessions ended, the one making this request included." }),
});

export const revokeSessionsEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/sessions",
  tag: "Sessions",
  summary: "Sign out everywhere: end every console session of the signed-in person, on every device, this one included",
  auth: "session",
  response: z.object({ data: EndedSessionsObject }),
});
