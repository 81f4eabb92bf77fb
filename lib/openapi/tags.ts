// The document's global tags, in the order a reader meets them. Every endpoint's
// `tag` must be one of these (the OpenAPI unit test checks it).
export const tags = [
  { name: "Agents", description: "Agents: instructions, model, the tools they may use, knowledge documents and an optional output schema." },
  { name: "Runs", description: "A run is one conversation of an agent: its frozen capability set, its steps and its cancellation." },
  { name: "Tools", description: "The organization's tool catalog (built-in and MCP tools), their contracts, and tool calls made inside a run." },
  { name: "Proposals", description: "Writes that need a person's approval: the proposal card, approval and refusal." },
  { name: "Operations", description: "Writes that were committed or whose outcome is unknown: status, cancellation and manual resolution." },
  { name: "Policies", description: "The organization's write policy: which actions are allowed, need approval or are denied, with its versions." },
  { name: "MCP connectors", description: "MCP servers connected to the organization, their synced tools and their review." },
  { name: "Files", description: "Uploaded files: the type is detected from the content, kept until the plan's expiry." },
  { name: "Models", description: "The models the organization's plan offers, and the providers that serve them." },
  { name: "API keys", description: "API keys with scopes; created and revoked by a signed-in person only." },
  { name: "Telemetry", description: "Usage counters of the organization." },
  { name: "Sessions", description: "Console sessions of the signed-in person: signing out everywhere at once." },
  { name: "Network", description: "The operator's network policy as an organization sees it: the private origins admin-chosen destinations may use (read-only)." },
  { name: "Organizations", description: "Organizations of this instance and their plans; created and assigned by the instance owner." },
  { name: "Webhooks", description: "Endpoints that receive signed events (Standard Webhooks), their secrets and delivery logs." },
  { name: "Preferences", description: "The signed-in person's own settings, such as approval e-mails." },
  { name: "Members", description: "The organization's members and their invitations: roles, deactivation, removal, and one's own password." },
  { name: "Audit", description: "The organization's append-only audit trail: who did what, read by owners and admins." },
  { name: "Connected applications", description: "OAuth grants members gave MCP clients at an agent's MCP door, and the clients registered with the organization." },
  { name: "Widgets", description: "Chat bubbles on the organization's own sites: their agent, allowed origins, visitor identity, appearance and limits, and their conversations (read-only)." },
] as const;
