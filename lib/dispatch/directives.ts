// Text in arguments that addresses the engine rather than the tool: chat
// template control tokens, forged tool-call or system markup, role prefixes,
// and the usual "ignore your previous instructions". Such text can only come
// from a model that was steered by something it read; the dispatcher refuses
// the call instead of carrying it further. Narrow on purpose: it is a tripwire
// that gets counted in telemetry, not the boundary itself (the frozen
// capability set and the schemas are).

const DIRECTIVES: { name: string; pattern: RegExp }[] = [
  { name: "control_token", pattern: /<\|[a-z_]{2,40}\|>|\[\/?INST\]|<<\/?SYS>>/i },
  { name: "engine_markup", pattern: /<\/?\s*(system|tool_call|tool_calls|function_call|tool_result|assistant)\s*>/i },
  { name: "role_prefix", pattern: /^\s*(system|assistant|developer)\s*:\s*\S/im },
  {
    name: "override",
    pattern:
      /\b(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|system|original)\s+(instructions|rules|prompts?|directions)\b/i,
  },
];

export interface DirectiveHit {
  /** JSON pointer of the string that carries it. */
  field: string;
  kind: string;
}

function escape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The first string (value or key) of `value` that carries an engine directive, or null. */
export function findEngineDirective(value: unknown, pointer = "", depth = 0): DirectiveHit | null {
  if (depth > 64) return null;
  if (typeof value === "string") {
    const hit = DIRECTIVES.find((d) => d.pattern.test(value));
    return hit ? { field: pointer, kind: hit.name } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findEngineDirective(value[i], `${pointer}/${i}`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const keyHit = DIRECTIVES.find((d) => d.pattern.test(key));
      if (keyHit) return { field: `${pointer}/${escape(key)}`, kind: keyHit.name };
      const hit = findEngineDirective(item, `${pointer}/${escape(key)}`, depth + 1);
      if (hit) return hit;
    }
  }
  return null;
}
