import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBoutique, type BoutiqueServer } from "./server";
import { call, connect, signIn, structured } from "./test-helpers";

let boutique: BoutiqueServer;
beforeAll(async () => {
  boutique = await startBoutique({ controls: true });
});
afterAll(async () => {
  await boutique?.close();
});

describe("smoke", () => {
  it("signs Dana in and lists her orders", async () => {
    const dana = await signIn(boutique.mcpUrl, boutique.issuer, "dana@boutique.test");
    const client = await connect(boutique.mcpUrl, dana.saved!.access_token);
    const out = structured(await call(client, "list_orders", {}));
    expect(out.account.email).toBe("dana@boutique.test");
    await client.close();
  });
});
