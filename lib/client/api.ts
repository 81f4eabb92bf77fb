// The console's fetcher: same /v1 handlers as API clients, through the session cookie.

export interface ApiFieldError {
  field: string;
  code: string;
  message: string;
}

export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: ApiFieldError[] = [],
    readonly reason?: Record<string, unknown>,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = "ApiClientError";
  }

  /** The message for one field, to show under that field. */
  fieldMessage(field: string): string | undefined {
    return this.errors.find((e) => e.field === field || e.field.startsWith(`${field}.`) || e.field.startsWith(`${field}[`))?.message;
  }
}

export async function apiFetch<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, headers, ...rest } = init;
  const response = await fetch(path, {
    ...rest,
    headers: { accept: "application/json", ...(json !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: json !== undefined ? JSON.stringify(json) : rest.body,
    credentials: "same-origin",
  });
  const text = await response.text();
  const payload = text ? (JSON.parse(text) as unknown) : null;
  if (!response.ok) {
    const error = (payload as { error?: { code: string; message: string; errors?: ApiFieldError[]; reason?: Record<string, unknown>; request_id?: string } } | null)?.error;
    throw new ApiClientError(response.status, error?.code ?? "internal_error", error?.message ?? `HTTP ${response.status}`, error?.errors ?? [], error?.reason, error?.request_id);
  }
  return payload as T;
}
