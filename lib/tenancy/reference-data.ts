// Reference data every deployment needs: plans and the model catalog.
// Ids are fixed so that they are the same on every database.

export const modelIds = {
  mistralLarge: "mdl_01jz8mistrallarge000000000",
  mistralSmall: "mdl_01jz8mistralsmall000000000",
  claudeSonnet: "mdl_01jz8claudesonnet000000000",
} as const;

export const models = [
  {
    id: modelIds.mistralLarge,
    name: "Mistral Large",
    provider: "mistral",
    structuredOutput: true,
    settings: { endpoint: "https://api.mistral.ai/v1", api_model: "mistral-large-latest", max_output_tokens: 8192 },
  },
  {
    id: modelIds.mistralSmall,
    name: "Mistral Small",
    provider: "mistral",
    structuredOutput: false,
    settings: { endpoint: "https://api.mistral.ai/v1", api_model: "mistral-small-latest", max_output_tokens: 4096 },
  },
  {
    id: modelIds.claudeSonnet,
    name: "Claude Sonnet",
    provider: "anthropic",
    structuredOutput: true,
    settings: { endpoint: "https://api.anthropic.com/v1", api_model: "claude-sonnet-4-5", max_output_tokens: 8192 },
  },
];

const MB = 1024 * 1024;

export const plans = [
  {
    id: "free",
    name: "Free",
    features: [] as string[],
    storageBytes: 50 * MB,
    maxFiles: 100,
    maxAgents: 10,
    maxFileBytes: 10 * MB,
    fileTtlDays: 30,
    models: [
      { modelId: modelIds.mistralLarge, isDefault: true },
      { modelId: modelIds.mistralSmall, isDefault: false },
    ],
  },
  {
    id: "pro",
    name: "Pro",
    features: ["structured_data"],
    storageBytes: 1024 * MB,
    maxFiles: 1000,
    maxAgents: 100,
    maxFileBytes: 25 * MB,
    fileTtlDays: 30,
    models: [
      { modelId: modelIds.mistralLarge, isDefault: true },
      { modelId: modelIds.mistralSmall, isDefault: false },
      { modelId: modelIds.claudeSonnet, isDefault: false },
    ],
  },
];
