// The /v1 error envelope as the console receives it.

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
    return this.errors.find(
      (e) => e.field === field || e.field.startsWith(`${field}.`) || e.field.startsWith(`${field}[`),
    )?.message;
  }
}

interface Envelope {
  error?: {
    code?: string;
    message?: string;
    errors?: ApiFieldError[];
    reason?: Record<string, unknown>;
    request_id?: string;
  };
}

/** The typed error of a failed answer; a body that is not the envelope still gives a status and a message. */
export function errorFromResponse(status: number, payload: unknown): ApiClientError {
  const error = typeof payload === "object" && payload !== null ? (payload as Envelope).error : undefined;
  return new ApiClientError(
    status,
    error?.code ?? "internal_error",
    error?.message ?? `HTTP ${status}`,
    error?.errors ?? [],
    error?.reason,
    error?.request_id,
  );
}

/** An answer's JSON, or null when it has none or is not JSON (a proxy's error page: the status then speaks). */
export async function readPayload(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
