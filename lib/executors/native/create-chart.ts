import { ToolError } from "@/lib/executors/errors";
import { throwIfCancelled } from "./errors";
import { JSON_SCHEMA_2020, type ToolContext, type ToolContract } from "./types";

// A chart is returned as plain data; the console draws it with recharts, so
// nothing an agent sends here is ever rendered as markup.

export type ChartType = "bar" | "line" | "pie" | "area";

export interface ChartPoint {
  x: string | number;
  y: number;
}

export interface ChartSeries {
  name: string;
  points: ChartPoint[];
}

export interface CreateChartInput {
  type: ChartType;
  title: string;
  x_label?: string;
  y_label?: string;
  series: ChartSeries[];
}

export interface CreateChartOutput {
  chart: {
    type: ChartType;
    title: string;
    x_label: string | null;
    y_label: string | null;
    series: ChartSeries[];
  };
  point_count: number;
}

const CHART_TYPES: ChartType[] = ["bar", "line", "pie", "area"];

const point = {
  type: "object",
  properties: {
    x: { anyOf: [{ type: "string", maxLength: 200 }, { type: "number" }] },
    y: { type: "number" },
  },
  required: ["x", "y"],
  additionalProperties: false,
};

const series = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 100 },
    points: { type: "array", items: point, minItems: 1, maxItems: 500 },
  },
  required: ["name", "points"],
  additionalProperties: false,
};

const label = { type: "string", minLength: 1, maxLength: 100 };

export const createChartContract: ToolContract = {
  inputSchema: {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    properties: {
      type: { enum: CHART_TYPES },
      title: { type: "string", minLength: 1, maxLength: 200 },
      x_label: label,
      y_label: label,
      series: { type: "array", items: series, minItems: 1, maxItems: 10 },
    },
    required: ["type", "title", "series"],
    additionalProperties: false,
    // A pie shows the parts of one whole: one series, no negative slice.
    if: { properties: { type: { const: "pie" } } },
    then: {
      properties: {
        series: {
          type: "array",
          maxItems: 1,
          items: {
            type: "object",
            properties: {
              points: {
                type: "array",
                items: { type: "object", properties: { y: { type: "number", minimum: 0 } } },
              },
            },
          },
        },
      },
    },
  },
  outputSchema: {
    $schema: JSON_SCHEMA_2020,
    type: "object",
    properties: {
      chart: {
        type: "object",
        properties: {
          type: { enum: CHART_TYPES },
          title: { type: "string" },
          x_label: { type: ["string", "null"] },
          y_label: { type: ["string", "null"] },
          series: { type: "array", items: series },
        },
        required: ["type", "title", "x_label", "y_label", "series"],
        additionalProperties: false,
      },
      point_count: { type: "integer", minimum: 1 },
    },
    required: ["chart", "point_count"],
    additionalProperties: false,
  },
};

// The schema already says this; repeating it here keeps the executor safe when
// called directly and gives the agent a precise field pointer.
function assertPieShape(input: CreateChartInput): void {
  if (input.series.length !== 1) {
    throw new ToolError("INVALID_ARGUMENTS", "A pie chart takes exactly one series.", { field: "/series" });
  }
  input.series[0].points.forEach((p, i) => {
    if (p.y < 0) {
      throw new ToolError("INVALID_ARGUMENTS", "A pie chart cannot have a negative value.", {
        field: `/series/0/points/${i}/y`,
      });
    }
  });
}

// create_chart — turn series of points into chart data for the console
export async function createChart(args: CreateChartInput, ctx: ToolContext): Promise<CreateChartOutput> {
  throwIfCancelled(ctx.signal);
  if (args.type === "pie") assertPieShape(args);
  // Rebuilt field by field so only the documented shape leaves the executor.
  const series = args.series.map((s) => ({ name: s.name, points: s.points.map((p) => ({ x: p.x, y: p.y })) }));
  return {
    chart: {
      type: args.type,
      title: args.title,
      x_label: args.x_label ?? null,
      y_label: args.y_label ?? null,
      series,
    },
    point_count: series.reduce((sum, s) => sum + s.points.length, 0),
  };
}
